"""Python Kopf posting the same events as test/e2e/posting/kopf-twin.test.ts does through ours."""
import kopf


class OutOfRange(Exception):
    pass


@kopf.on.event('configmaps', labels={'events-twin': 'kopf'})
def twin(body, **_):
    kopf.info(body, reason='Hello', message='Info message.')
    kopf.warn(body, reason='Careful', message='Warning message.')
    try:
        raise OutOfRange('out of range')
    except OutOfRange as e:
        kopf.exception(body, message='It failed:', exc=e)
    kopf.event(body, type='SomeType', reason='Custom', message='x' * 600 + 'y' * 600)
