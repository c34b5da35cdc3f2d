// The reconcile benchmark's operator on controller-runtime, the counterpart of ../operator.ts.
// Every KopfExample owns one ConfigMap of its own name (a controller owner reference); the
// reconciler reads the object and its child from the manager's cache (controller-runtime's way)
// and creates the child when it is missing. A change of a ConfigMap reaches its owner through Owns().
//
// It counts its reconciles and prints the count on SIGUSR2 ("Reconciles: N."), so that the benchmark
// can divide the CPU time of a phase by the reconciles in it.
//
//	KUBECONFIG=… controller-runtime --namespace NS [--workers N]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var kopfExample = schema.GroupVersionKind{Group: "kopf.dev", Version: "v1", Kind: "KopfExample"}

// reconciler keeps one ConfigMap per KopfExample; reconciles counts its calls.
type reconciler struct {
	client     client.Client
	reconciles atomic.Int64
}

func (r *reconciler) Reconcile(ctx context.Context, request ctrl.Request) (ctrl.Result, error) {
	r.reconciles.Add(1)
	parent := &unstructured.Unstructured{}
	parent.SetGroupVersionKind(kopfExample)
	if err := r.client.Get(ctx, request.NamespacedName, parent); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if parent.GetDeletionTimestamp() != nil {
		return ctrl.Result{}, nil
	}
	child := &corev1.ConfigMap{}
	err := r.client.Get(ctx, request.NamespacedName, child)
	if err == nil || !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	field, _, _ := unstructured.NestedString(parent.Object, "spec", "field")
	child = &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:            parent.GetName(),
			Namespace:       parent.GetNamespace(),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(parent, kopfExample)},
		},
		Data: map[string]string{"field": field},
	}
	err = r.client.Create(ctx, child)
	return ctrl.Result{}, client.IgnoreAlreadyExists(err)
}

func main() {
	namespace := flag.String("namespace", "default", "the namespace to serve")
	workers := flag.Int("workers", 1, "reconciles at a time (controller-runtime's MaxConcurrentReconciles)")
	flag.Parse()

	// Without a client-side rate limit (controller-runtime's default), as this runtime's client.
	config := ctrl.GetConfigOrDie()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		fail(err)
	}
	manager, err := ctrl.NewManager(config, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		fail(err)
	}
	r := &reconciler{client: manager.GetClient()}
	parent := &unstructured.Unstructured{}
	parent.SetGroupVersionKind(kopfExample)
	err = ctrl.NewControllerManagedBy(manager).
		For(parent).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).
		Complete(r)
	if err != nil {
		fail(err)
	}

	counts := make(chan os.Signal, 1)
	signal.Notify(counts, syscall.SIGUSR2)
	go func() {
		for range counts {
			fmt.Printf("Reconciles: %d.\n", r.reconciles.Load())
		}
	}()
	ctx := ctrl.SetupSignalHandler()
	go func() {
		if manager.GetCache().WaitForCacheSync(ctx) {
			fmt.Println("Configured for the reconcile benchmark.")
		}
	}()
	if err := manager.Start(ctx); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
