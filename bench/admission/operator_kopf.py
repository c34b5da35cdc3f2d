# The admission benchmark's operator on Python Kopf: the same handlers as operator.ts beside it.
# Kopf makes its own certificate only with `kopf[dev]` (certbuilder); here openssl makes one.
import pathlib
import subprocess
import tempfile

import kopf


@kopf.on.startup()
def configure(settings, **_):
    settings.posting.enabled = False
    folder = pathlib.Path(tempfile.mkdtemp())
    cert, pkey = folder / 'cert.pem', folder / 'key.pem'
    subprocess.run([
        'openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', str(pkey), '-out', str(cert), '-days', '1', '-subj', '/CN=127.0.0.1',
        '-addext', 'subjectAltName=IP:127.0.0.1',
    ], check=True, capture_output=True)
    settings.admission.server = kopf.WebhookServer(addr='127.0.0.1', host='127.0.0.1', certfile=cert, pkeyfile=pkey)
    settings.admission.managed = 'bench.kopf.dev'


@kopf.on.validate('kopfexamples')
def validate_fn(spec, labels, **_):
    if labels.get('probe'):
        raise kopf.AdmissionError(f"probed, injected {spec.get('injected')}", code=403)
    if spec.get('field') == 'wrong':
        raise kopf.AdmissionError("The field is wrong.", code=422)


@kopf.on.mutate('kopfexamples')
def mutate_fn(patch, **_):
    patch.spec['injected'] = 123
