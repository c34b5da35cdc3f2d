# The Python Kopf operator that example.ts ports (Kopf's examples/16-indexing): same handler ids,
# same behaviour, but for the test of a running pod (`True in running`, not a non-empty store).
import kopf


@kopf.index('pods')
def is_running(namespace, name, status, **_):
    return {(namespace, name): status.get('phase') == 'Running'}


@kopf.index('pods')
def by_label(labels, name, **_):
    return {(label, value): name for label, value in labels.items()}


@kopf.on.probe()
def pod_count(is_running, **_):
    return len(is_running)


@kopf.on.probe()
def pod_names(is_running, **_):
    return [name for _, name in is_running]


@kopf.timer('kopfexamples', interval=5)
def intervalled(is_running, by_label, patch, logger, **_):
    labelled = [f"{label}={value}: {', '.join(sorted(names))}" for (label, value), names in by_label.items()]
    logger.info(f"Pods by label: {'; '.join(sorted(labelled))}")
    patch.status['running-pods'] = sorted(
        f"{ns}::{name}"
        for (ns, name), running in is_running.items()
        if ns in ['kube-system', 'default']
        if True in running
    )
