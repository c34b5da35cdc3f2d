// The scale benchmark's operator on controller-runtime, the counterpart of ../../../burst/operator.ts:
// Kopf's protocol for one creation handler, with the manager's cache. A KopfExample without
// Kopf's finalizer gets it; one with the finalizer and without the last-handled annotation gets
// the handler's result in its status and then the annotation (the spec as JSON); a deleted one
// loses the finalizer. An object that carries all of it needs nothing: a restart writes nothing.
//
//	KUBECONFIG=… kopfprotocol --namespace NS [--workers N]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

const (
	finalizer = "kopf.zalando.org/KopfFinalizerMarker"
	diffBase  = "kopf.zalando.org/last-handled-configuration"
)

var kopfExample = schema.GroupVersionKind{Group: "kopf.dev", Version: "v1", Kind: "KopfExample"}

type reconciler struct {
	client client.Client
}

func (r *reconciler) Reconcile(ctx context.Context, request ctrl.Request) (ctrl.Result, error) {
	object := &unstructured.Unstructured{}
	object.SetGroupVersionKind(kopfExample)
	if err := r.client.Get(ctx, request.NamespacedName, object); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if object.GetDeletionTimestamp() != nil {
		if !controllerutil.ContainsFinalizer(object, finalizer) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, r.patch(ctx, object, map[string]any{"metadata": map[string]any{
			"finalizers": without(object.GetFinalizers(), finalizer), "resourceVersion": object.GetResourceVersion(),
		}}, false)
	}
	if !controllerutil.ContainsFinalizer(object, finalizer) {
		return ctrl.Result{}, r.patch(ctx, object, map[string]any{"metadata": map[string]any{
			"finalizers": append(object.GetFinalizers(), finalizer), "resourceVersion": object.GetResourceVersion(),
		}}, false)
	}
	if _, handled := object.GetAnnotations()[diffBase]; handled {
		return ctrl.Result{}, nil
	}
	result := map[string]any{"status": map[string]any{"create_fn": map[string]any{"message": "hello world"}}}
	if err := r.patch(ctx, object, result, true); err != nil {
		return ctrl.Result{}, err
	}
	spec, _ := json.Marshal(map[string]any{"spec": object.Object["spec"]})
	return ctrl.Result{}, r.patch(ctx, object, map[string]any{"metadata": map[string]any{
		"annotations": map[string]any{diffBase: string(spec)},
	}}, false)
}

// patch sends a JSON merge patch to the object or to its status.
func (r *reconciler) patch(ctx context.Context, object client.Object, body map[string]any, status bool) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	patch := client.RawPatch(types.MergePatchType, data)
	if status {
		return client.IgnoreNotFound(r.client.Status().Patch(ctx, object, patch))
	}
	return client.IgnoreNotFound(r.client.Patch(ctx, object, patch))
}

func without(items []string, item string) []string {
	kept := []string{}
	for _, each := range items {
		if each != item {
			kept = append(kept, each)
		}
	}
	return kept
}

func main() {
	namespace := flag.String("namespace", "default", "the namespace to serve")
	workers := flag.Int("workers", 1, "reconciles at a time (controller-runtime's MaxConcurrentReconciles)")
	flag.Parse()

	manager, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 runtime.NewScheme(),
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		fail(err)
	}
	object := &unstructured.Unstructured{}
	object.SetGroupVersionKind(kopfExample)
	err = ctrl.NewControllerManagedBy(manager).
		For(object).
		WithOptions(controller.Options{MaxConcurrentReconciles: *workers}).
		Complete(&reconciler{client: manager.GetClient()})
	if err != nil {
		fail(err)
	}
	ctx := ctrl.SetupSignalHandler()
	go func() {
		if manager.GetCache().WaitForCacheSync(ctx) {
			fmt.Println("Configured for the scale benchmark.")
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
