# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
import kopf


@kopf.index('pods')
def is_running(namespace, name, status, **_):
    return {(namespace, name): status.get('phase') == 'Running'}


@kopf.index('pods')
def by_label(labels, name, **_):
    return {(label, value): name for label, value in labels.items()}


@kopf.on.create('kopfexamples')
def running_pods(is_running, by_label, patch, logger, **_):
    labelled = [f"{label}={value}: {', '.join(sorted(names))}" for (label, value), names in by_label.items()]
    logger.info(f"Pods by label: {'; '.join(sorted(labelled))}")
    patch.status['running-pods'] = sorted(
        f"{ns}::{name}"
        for (ns, name), running in is_running.items()
        if ns in ['kube-system', 'default']
        if True in running
    )
