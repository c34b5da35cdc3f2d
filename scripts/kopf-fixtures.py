"""
Regenerates test/unit/fixtures/kopf/*.json by running Python Kopf 1.44's own code.

The TypeScript storage layer (runtime/progress/, runtime/structs/diffs.ts and patches.ts) must
write exactly what Kopf writes, so that objects can pass between a Python and a TypeScript
operator. These fixtures are Kopf's answers to the questions the unit tests ask.

    python3 -m venv ~/.cache/kopf/venv-kopf
    ~/.cache/kopf/venv-kopf/bin/pip install 'kopf==1.44.*'
    ~/.cache/kopf/venv-kopf/bin/python scripts/kopf-fixtures.py [--check]

With --check, nothing is written: the script exits non-zero if a committed fixture differs
from what the installed Kopf produces now.
"""
import asyncio
import base64
import copy
import datetime
import hashlib
import importlib.metadata
import json
import logging
import os
import pathlib
import sys
import types

# Kopf iterates sets of strings in places (diffs, purges); a fixed hash seed makes its orders,
# and so these fixtures, the same on every run.
if os.environ.get('PYTHONHASHSEED') != '0':
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, 'PYTHONHASHSEED': '0'})

import kopf
from kopf._cogs.configs import configuration, diffbase, progress
from kopf._cogs.structs import bodies, diffs, patches
from kopf._core.actions import execution, progression

OUT = pathlib.Path(__file__).resolve().parent.parent / 'test' / 'unit' / 'fixtures' / 'kopf'
UTC = datetime.timezone.utc


class FrozenLoop:
    """Kopf reads "now" as basetime + loop.time(); a settable loop clock makes it deterministic."""
    t = 0.0

    def time(self) -> float:
        return self.t


LOOP = FrozenLoop()
BASETIME = datetime.datetime(2026, 11, 22, 3, 18, 1, 949187, tzinfo=UTC)
progression.asyncio = types.SimpleNamespace(get_running_loop=lambda: LOOP)
progression._get_basetime = lambda: BASETIME


def iso(dt):
    return dt.isoformat(timespec='microseconds')


# --------------------------------------------------------------------------------------------
# Annotation keys

def keys_fixture():
    rs_body = {'kind': 'ReplicaSet', 'metadata': {'ownerReferences': [{'kind': 'Deployment', 'name': 'd'}]}}
    rs_other = {'kind': 'ReplicaSet', 'metadata': {'ownerReferences': [{'kind': 'StatefulSet', 'name': 's'}]}}
    keys = [
        'create_fn', 'create_fn/sub', 'create_c/a', 'field_fn/spec.field', 'a<b>c', 'touch-dummy',
        'last-handled-configuration', 'x' * 63, 'x' * 64, 'x' * 100, 'handler/' * 10,
        'créer_fn', 'ключ/подключ', '处理程序/子程序', '🎉' * 40, 'é' * 70, 'a' * 60 + '🎉🎉🎉🎉',
        'a' * 50 + '/' + 'b' * 20, 'x' * 45, 'x' * 46,
    ]
    prefixes = ['kopf.zalando.org', 'my-operator.example.com', 'lengthy-operator-name-to-hit-63-chars.example.com']
    cases = []
    for prefix in prefixes:
        for v1 in [True, False]:
            storage = progress.AnnotationsProgressStorage(prefix=prefix, v1=v1)
            for key in keys:
                for body in [None, rs_body, rs_other]:
                    if body is not None and (key not in ('create_fn', 'x' * 64) or not v1):
                        continue
                    cases.append(dict(
                        prefix=prefix, key=key, v1=v1, body=body,
                        keys=list(storage.make_keys(key, body=None if body is None else bodies.Body(body))),
                        safeKey=storage.make_safe_key(key),
                        v1Key=storage.make_v1_key(key),
                        v2Key=storage.make_v2_key(key),
                        suffix=storage.make_suffix(key),
                    ))
    return cases


# --------------------------------------------------------------------------------------------
# Python's compact JSON (what Kopf writes into annotations)

def json_fixture():
    values = [
        {}, [], None, True, False, 0, -1, 123456789, 2 ** 53, -(2 ** 40),
        0.5, -2.5, 0.1, 123.456, 1e-4, 1e-5, 1.5e-7, 3.14159e-10, 1.7976931348623157e308 / 1e300,
        'plain', 'quote " backslash \\ slash /', 'tab\tnewline\ncr\rbs\bff\f', '\x00\x01\x1f\x7f',
        'é ü ß', 'ключ', '处理程序', '🎉 party', '\u2028\u2029', '<script>&amp;</script>', '\ufeff',
        {'b': 1, 'a': [1, 'x', None, {'c': False}]},
        {'started': '2026-11-22T03:18:01.949187+00:00', 'retries': 1, 'success': False},
        {'nested': {'deeper': {'deepest': ['é', '🎉']}}},
    ]
    return [dict(value=v, text=json.dumps(v, separators=(',', ':'))) for v in values]


# --------------------------------------------------------------------------------------------
# Timestamps

def timestamps_fixture():
    parse = [
        '2026-11-22T03:18:01.949187+00:00', '2026-11-22T03:18:01.949187Z', '2026-11-22T03:18:01.949187',
        '2026-11-22T03:18:01+00:00', '2026-11-22T03:18:01Z', '2026-11-22T03:18:01',
        '2026-11-22T03:18:01.9+02:00', '2026-11-22T03:18:01.1234567-05:30', '2026-11-22T03:18:01,5Z',
        '2026-11-22T03:18:01.000000+00:00', '2026-11-22 03:18:01Z', '20261122T031801Z', '2026-11-22T0318Z',
        '2026-11-22T03Z', '2026-11-22', '2026-11', '2026', '2026-1-2T03:04:05Z', '2026-11-22T03:18:1Z',
        '2026-11-22T03:18:01+0530', '2026-11-22T03:18:01+05', '2026-11-22T03:18:01-00:00',
        '2026-11-22T23:59:59.999999-11:59', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999+00:00',
        '2024-02-29T12:00:00Z', '1969-12-31T23:59:59.5Z',
        # Errors:
        '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-22T24:00:00Z', '2026-11-22T03:60:00Z',
        '2026-11-22T03:18:60Z', 'not a date', '', '2026-11-22T03:18:01+24:00', '202611',
        '0000-01-01T00:00:00Z', '2026-11-22T03:18:01.Z',
    ]
    parsed = []
    for text in parse:
        try:
            dt = progression.parse_iso8601(text)
        except Exception as e:
            parsed.append(dict(text=text, error=type(e).__name__))
        else:
            parsed.append(dict(text=text, iso=iso(dt), naive=dt.tzinfo is None,
                               epochMicros=None if dt.tzinfo is None else
                               str((dt - datetime.datetime(1970, 1, 1, tzinfo=UTC)) // datetime.timedelta(microseconds=1))))
    deltas = [0, 1, 999999, 1000000, 59 * 1000000, 3600 * 1000000, 86400 * 1000000 - 1, 86400 * 1000000,
              2 * 86400 * 1000000 + 5 * 1000000, 10 * 1000000 + 500000, 123456789012, -1, -5 * 1000000,
              -86400 * 1000000 - 1]
    timedeltas = [dict(micros=m, text=str(datetime.timedelta(microseconds=m))) for m in deltas]
    auto = [dict(iso=iso(dt), auto=dt.isoformat()) for dt in [
        datetime.datetime(2026, 1, 1, tzinfo=UTC),
        datetime.datetime(2026, 1, 1, 0, 0, 0, 500, tzinfo=UTC),
        datetime.datetime(2026, 1, 1, 0, 0, 0, 123000),
    ]]
    return dict(parse=parsed, timedeltas=timedeltas, auto=auto)


# --------------------------------------------------------------------------------------------
# Records, handler states and their changes

def make_state(**kw):
    started = kw.pop('started', BASETIME)
    return progression.HandlerState(active=True, basetime=BASETIME, started=started, **kw)


def stored_value(storage, key, record):
    patch = patches.Patch()
    storage.store(key=key, record=record, body=bodies.Body({}), patch=patch)
    return dict(patch)


def records_fixture():
    later = BASETIME + datetime.timedelta(seconds=12.5)
    states = [
        dict(),
        dict(purpose='create'),
        dict(purpose='update', retries=1, success=True, stopped=later),
        dict(purpose='create', retries=1, delayed=later, message='not yet'),
        dict(purpose='delete', retries=3, failure=True, stopped=later, message='Handler \'x\' failed: "boom" ✗'),
        dict(purpose='create', retries=2, subrefs=['fn/b', 'fn/a', 'fn/a/x', 'fn/É', 'fn/🎉', 'fn/Z']),
        dict(purpose='resume', retries=1, delayed=later, message='', subrefs=['fn/only']),
        dict(started=datetime.datetime(2026, 1, 1, 0, 0, 0), purpose='create'),
        dict(started=datetime.datetime(2026, 1, 1, 0, 0, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30))), purpose='create'),
        dict(purpose='create', retries=1, delayed=BASETIME.replace(microsecond=0), message='None'),
    ]
    compact = progress.AnnotationsProgressStorage()
    verbose = progress.AnnotationsProgressStorage(verbose=True)
    status = progress.StatusProgressStorage()
    out = []
    for fields in states:
        state = make_state(**fields)
        record = state.for_storage()
        out.append(dict(
            state={k: (iso(v) if isinstance(v, datetime.datetime) else v) for k, v in fields.items()},
            record=record,
            pure=state.as_in_storage(),
            annotations=stored_value(compact, 'fn', record),
            verbose=stored_value(verbose, 'fn', record),
            status=stored_value(status, 'fn', record),
        ))

    origins = [
        {'started': '2026-11-22T03:18:01.949187+00:00', 'purpose': 'create', 'retries': 0, 'success': False, 'failure': False},
        {'started': '2026-11-22T03:18:01.949187Z', 'purpose': 'create', 'retries': 0, 'success': False, 'failure': False},
        {'started': '2026-11-22T03:18:01.949187', 'retries': 1, 'success': True},
        {'started': '2026-11-22T03:18:01+02:00', 'delayed': '2026-11-22T03:19:01.5Z', 'purpose': '', 'retries': None, 'message': 'x'},
        {'started': '2026-11-22T03:18:01.949187+00:00', 'purpose': 'create', 'retries': 2, 'success': False, 'failure': False, 'subrefs': ['b', 'a']},
        {'started': '2026-11-22T03:18:01.949187+00:00', 'purpose': 'create', 'retries': 2, 'success': False, 'failure': False, 'subrefs': ['a', 'b']},
        {},
        {'stopped': '2026-11-22T03:18:02.000000+00:00', 'failure': True, 'message': 'gone', 'extra': 'kept?'},
    ]
    LOOP.t = 100.0
    loaded = []
    for origin in origins:
        state = progression.HandlerState.from_storage(copy.deepcopy(origin), basetime=BASETIME)
        loaded.append(dict(origin=origin, now=iso(BASETIME + datetime.timedelta(seconds=LOOP.t)),
                           pure=state.as_in_storage(), changed=state.as_in_storage() != origin,
                           finished=state.finished))
    LOOP.t = 0.0
    return dict(states=out, loaded=loaded)


# --------------------------------------------------------------------------------------------
# Outcomes: Kopf's execute_handler_once over scripted handler behaviours

def raiser(spec):
    kind = spec['kind']
    if kind == 'success':
        return lambda **_: spec.get('result')
    if kind == 'temporary':
        return _raise(kopf.TemporaryError(spec['message'], delay=spec['delay']))
    if kind == 'permanent':
        return _raise(kopf.PermanentError(spec['message']) if spec['message'] else kopf.PermanentError())
    if kind == 'arbitrary':
        return _raise(ValueError(spec['message']) if spec['message'] else ValueError())
    if kind == 'children':
        return _raise(execution.HandlerChildrenRetry(delay=spec['delay']))
    raise AssertionError(kind)


def _raise(exc):
    def fn(**_):
        raise exc
    return fn


class ListHandler(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(dict(level=record.levelname.lower(), message=record.getMessage(),
                                 traceback=record.exc_info is not None))


def outcomes_fixture():
    behaviours = [
        dict(kind='success', result=None),
        dict(kind='success', result={'message': 'done', 'n': 1}),
        dict(kind='success', result='text'),
        dict(kind='temporary', message='not yet', delay=30),
        dict(kind='temporary', message='at once', delay=None),
        dict(kind='temporary', message='zero', delay=0),
        dict(kind='temporary', message='fractional', delay=1.5),
        # No TemporaryError without a message: Python's str() of it is "None", TypeScript's is ''.
        dict(kind='permanent', message='no way'),
        dict(kind='permanent', message=''),
        dict(kind='arbitrary', message='oops'),
        dict(kind='arbitrary', message=''),
        dict(kind='children', delay=None),
        dict(kind='children', delay=5),
    ]
    options = [
        dict(),
        dict(errors='PERMANENT'),
        dict(errors='IGNORED'),
        dict(timeout=60),
        dict(timeout=60.5, backoff=30),
        dict(retries=3),
        dict(retries=3, timeout=100, backoff=5),
    ]
    situations = [
        dict(retries=0, runtime=0.0),
        dict(retries=2, runtime=45.25),
        dict(retries=3, runtime=10.0),
        dict(retries=1, runtime=60.5),
        dict(retries=5, runtime=3725.000001),
        dict(retries=0, runtime=90061.5),
    ]
    settings = configuration.OperatorSettings()
    settings.execution.default_backoff = 60
    cases = []

    async def run_all():
        for opts in options:
            for situation in situations:
                for behaviour in behaviours:
                    LOOP.t = situation['runtime']
                    prior = dict(purpose='create', retries=situation['retries'], subrefs=['fn/old'])
                    state = make_state(**prior)
                    handler = execution.Handler(
                        id='fn', fn=raiser(behaviour), param=None,
                        errors=execution.ErrorsMode[opts['errors']] if 'errors' in opts else None,
                        timeout=opts.get('timeout'), retries=opts.get('retries'), backoff=opts.get('backoff'))
                    logger = logging.getLogger(f'fixtures.{len(cases)}')
                    logger.propagate = False
                    capture = ListHandler()
                    logger.addHandler(capture)
                    logger.setLevel(logging.DEBUG)
                    cause = execution.Cause(logger=logger)
                    outcome = await execution.execute_handler_once(
                        settings=settings, handler=handler, cause=cause, state=state)
                    after = state.with_outcome(outcome)
                    cases.append(dict(
                        options=opts, situation=situation, behaviour=behaviour,
                        now=iso(BASETIME + datetime.timedelta(seconds=LOOP.t)),
                        outcome=dict(final=outcome.final, delay=outcome.delay,
                                     result=outcome.result,
                                     exception=None if outcome.exception is None else type(outcome.exception).__name__,
                                     message=None if outcome.exception is None else str(outcome.exception)),
                        record=after.for_storage(),
                        logs=[r for r in capture.records if r['message'] != "Handler 'fn' is invoked."],
                    ))
        LOOP.t = 0.0

    asyncio.run(run_all())
    return cases


# --------------------------------------------------------------------------------------------
# Progress storages: fetch / store / purge / touch / clear

STORE_BODIES = ('empty', 'with-annotation', 'with-custom-marker', 'replicaset', 'with-null-status')
TOUCH_BODIES = ('empty', 'with-touch', 'with-status-touch', 'with-custom-marker', 'with-null-status')


def storages_fixture():
    rec = {'started': '2026-11-22T03:18:01.949187+00:00', 'stopped': None, 'delayed': None, 'purpose': 'create',
           'retries': 1, 'success': True, 'failure': False, 'message': None, 'subrefs': None}
    long_key = 'fn/' + 'sub' * 25
    storages = {
        'annotations': lambda: progress.AnnotationsProgressStorage(),
        'annotations-v2only': lambda: progress.AnnotationsProgressStorage(v1=False),
        'annotations-custom': lambda: progress.AnnotationsProgressStorage(prefix='my-op.example.com'),
        'annotations-kopf-custom': lambda: progress.AnnotationsProgressStorage(prefix='kopf.example.com'),
        'annotations-verbose': lambda: progress.AnnotationsProgressStorage(verbose=True),
        'annotations-touch': lambda: progress.AnnotationsProgressStorage(touch_key='my-touch'),
        'status': lambda: progress.StatusProgressStorage(),
        'status-custom': lambda: progress.StatusProgressStorage(name='op', field='status.{name}.state', touch_field='status.{name}.poke'),
        'smart': lambda: progress.SmartProgressStorage(),
        'smart-custom': lambda: progress.SmartProgressStorage(prefix='my-op.example.com', name='op'),
    }

    def a(key, value):
        return {'metadata': {'annotations': {key: value}}}

    enc = json.dumps({k: v for k, v in rec.items() if v is not None}, separators=(',', ':'))
    long_v2 = progress.AnnotationsProgressStorage().make_v2_key(long_key)
    long_v1 = progress.AnnotationsProgressStorage().make_v1_key(long_key)
    bodies_ = {
        'empty': {},
        'with-annotation': a('kopf.zalando.org/fn', enc),
        'with-v1-only': a(long_v1, enc),
        'with-v2-and-v1': {'metadata': {'annotations': {long_v2: enc, long_v1: enc.replace('"retries":1', '"retries":9')}}},
        'with-custom': a('my-op.example.com/fn', enc),
        'with-custom-marker': {'metadata': {'annotations': {'my-op.example.com/fn': enc, 'my-op.example.com/kopf-managed': 'yes'}}},
        'with-status': {'status': {'kopf': {'progress': {'fn': {k: v for k, v in rec.items() if v is not None}}}}},
        'with-status-op': {'status': {'op': {'state': {'fn': {'retries': 7}}}}},
        'with-both': {'metadata': {'annotations': {'kopf.zalando.org/fn': enc}},
                      'status': {'kopf': {'progress': {'fn': {'retries': 5}}}}},
        'with-touch': a('kopf.zalando.org/touch-dummy', '2026-11-22T03:18:01.949187+00:00'),
        'with-status-touch': {'status': {'kopf': {'dummy': '2026-11-22T03:18:01.949187+00:00'}}},
        'with-null-status': {'status': None},
        'replicaset': {'kind': 'ReplicaSet', 'metadata': {'ownerReferences': [{'kind': 'Deployment'}],
                                                           'annotations': {'kopf.zalando.org/fn-ofDRS': enc}}},
    }
    pending = {
        'none': {},
        'pending-fn': a('kopf.zalando.org/fn', 'pending'),
        'pending-custom': a('my-op.example.com/fn', 'pending'),
        'pending-status': {'status': {'kopf': {'progress': {'fn': {'retries': 3}}}}},
        'pending-other': {'metadata': {'annotations': {'kopf.zalando.org/other': 'x'}}, 'spec': {'a': 1}},
    }
    essences = [
        {'spec': {'a': 1}},
        {'metadata': {'annotations': {'kopf.zalando.org/fn': '{}', 'kopf.zalando.org/touch-dummy': 'x', 'other': 'y'}}, 'spec': {'a': 1}},
        {'metadata': {'annotations': {'kopf.zalando.org/fn': '{}'}, 'labels': {}}, 'spec': {'a': 1}},
        {'metadata': {'annotations': {'my-op.example.com/fn': '{}', 'my-op.example.com.other/x': 'z'}}},
        {'status': {'kopf': {'progress': {'fn': {}}}}, 'spec': {}},
        {'status': {'kopf': {'progress': {'fn': {}}, 'other': 1}}},
        {'status': {'op': {'state': {'fn': {}}}, 'x': 1}},
    ]
    cases = []
    for sname, factory in storages.items():
        for bname, body in bodies_.items():
            for key in ['fn', long_key]:
                cases.append(dict(storage=sname, op='fetch', key=key, body=bname,
                                  result=factory().fetch(key=key, body=bodies.Body(copy.deepcopy(body)))))
            for pname, pend in pending.items():
                if bname not in ('empty', 'with-annotation', 'with-custom', 'with-custom-marker', 'with-status',
                                 'with-status-op', 'with-touch', 'with-status-touch', 'replicaset', 'with-null-status'):
                    continue
                for key in ['fn', long_key]:
                    if pname in ('none', 'pending-other') and bname in STORE_BODIES:
                        patch = patches.Patch(copy.deepcopy(pend))
                        factory().store(key=key, record=dict(rec), body=bodies.Body(copy.deepcopy(body)), patch=patch)
                        cases.append(dict(storage=sname, op='store', key=key, body=bname, patch=pname, result=dict(patch)))
                    patch = patches.Patch(copy.deepcopy(pend))
                    factory().purge(key=key, body=bodies.Body(copy.deepcopy(body)), patch=patch)
                    cases.append(dict(storage=sname, op='purge', key=key, body=bname, patch=pname, result=dict(patch)))
                for value in ['2026-11-22T03:18:01.949187+00:00', '2026-12-01T00:00:00+00:00', None]:
                    if pname not in ('none', 'pending-other') or bname not in TOUCH_BODIES:
                        continue
                    patch = patches.Patch(copy.deepcopy(pend))
                    factory().touch(body=bodies.Body(copy.deepcopy(body)), patch=patch, value=value)
                    cases.append(dict(storage=sname, op='touch', value=value, body=bname, patch=pname, result=dict(patch)))
        for i, essence in enumerate(essences):
            cases.append(dict(storage=sname, op='clear', essence=essence,
                              result=factory().clear(essence=copy.deepcopy(essence))))
    return dict(record=rec, bodies=bodies_, pending=pending, cases=cases)


# --------------------------------------------------------------------------------------------
# Essences and diff-bases

def essence_fixture():
    base_meta = {'name': 'kopf-example-1', 'namespace': 'default', 'uid': 'u-1', 'resourceVersion': '42',
                 'generation': 3, 'creationTimestamp': '2026-11-22T03:18:01Z',
                 'finalizers': ['kopf.zalando.org/KopfFinalizerMarker'], 'managedFields': [{'manager': 'kubectl'}]}
    lh = 'kopf.zalando.org/last-handled-configuration'
    bodies_ = {
        'minimal': {'apiVersion': 'kopf.dev/v1', 'kind': 'KopfExample', 'metadata': dict(base_meta),
                    'spec': {'field': 'value', 'items': ['a', 'b']}},
        'labels': {'apiVersion': 'kopf.dev/v1', 'kind': 'KopfExample',
                   'metadata': dict(base_meta, labels={'l': 'v'}), 'spec': {'field': 'value', 'items': ['a', 'b']}},
        'spec-after': {'metadata': dict(base_meta, labels={'l': 'v'}), 'spec': {'z': 1, 'a': 2}, 'apiVersion': 'v1',
                       'kind': 'X', 'data': {'k': 'v'}, 'status': {'phase': 'Running'}},
        'annotations': {'kind': 'X', 'metadata': dict(base_meta, annotations={
            'kopf.zalando.org/create_fn': '{"retries":1}',
            lh: '{"spec":{}}\n',
            'kopf.zalando.org/touch-dummy': 'x',
            'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"X"}\n',
            'my-op.example.com/kopf-managed': 'yes',
            'my-op.example.com/fn': '{}',
            'other-op.kopf.zalando.org/fn': '{}',
            'kopf.example.com/fn': '{}',
            'plain': 'kept',
            'example.com/user': 'kept too',
        }), 'spec': {'x': 1}},
        'only-kopf-annotations': {'metadata': dict(base_meta, annotations={'kopf.zalando.org/fn': '{}'}, labels={}),
                                  'spec': {'x': 1}},
        'empty': {'metadata': dict(base_meta)},
        'no-metadata': {'spec': {'é': '🎉', 'nested': {'list': [{'a': 1}, None, 1.5]}}},
        'status-fields': {'metadata': dict(base_meta), 'spec': {'a': 1},
                          'status': {'phase': 'Running', 'kopf': {'progress': {'fn': {'retries': 1}}},
                                     'nested': {'deep': {'x': 1, 'y': 2}}, 'empty': {}}},
        'extra-metadata': {'metadata': dict(base_meta, labels={'a': 'b'}), 'spec': {'a': 1}},
        'replicaset': {'apiVersion': 'apps/v1', 'kind': 'ReplicaSet',
                       'metadata': dict(base_meta, ownerReferences=[{'kind': 'Deployment', 'name': 'd'}],
                                        annotations={'kopf.zalando.org/last-handled-configuration-ofDRS': '{}\n',
                                                     'deployment.kubernetes.io/revision': '1'}),
                       'spec': {'replicas': 1}},
        'ignored': {'metadata': dict(base_meta), 'spec': {'a': 1, 'ignored': {'x': 1}, 'keep': {'ignored': 2}}},
        'status-diffbase': {'metadata': dict(base_meta), 'spec': {'a': 1},
                            'status': {'kopf': {'last-handled-configuration': '{"spec":{"a":0}}'}, 'x': 1}},
        'custom-prefix': {'metadata': dict(base_meta, annotations={
            'my-op.example.com/last-handled-configuration': '{}\n', 'my-op.example.com/fn': '{}', 'a': 'b'}),
                          'spec': {'a': 1}},
    }
    configs = {
        'default': dict(storage=lambda: diffbase.AnnotationsDiffBaseStorage(), extra=None),
        'extra': dict(storage=lambda: diffbase.AnnotationsDiffBaseStorage(),
                      extra=['status.phase', 'status.nested.deep.x', 'status.absent', 'metadata.generation', 'status.empty']),
        'ignored': dict(storage=lambda: diffbase.AnnotationsDiffBaseStorage(ignored_fields=['spec.ignored', 'metadata.labels', 'spec.keep.ignored.deeper', ('spec', 'zzz')]),
                        extra=None),
        'v2only': dict(storage=lambda: diffbase.AnnotationsDiffBaseStorage(v1=False), extra=None),
        'custom': dict(storage=lambda: diffbase.AnnotationsDiffBaseStorage(prefix='my-op.example.com', key='last-handled-configuration'),
                       extra=None),
        'status': dict(storage=lambda: diffbase.StatusDiffBaseStorage(), extra=['status.phase']),
        'multi': dict(storage=lambda: diffbase.MultiDiffBaseStorage([diffbase.AnnotationsDiffBaseStorage(), diffbase.StatusDiffBaseStorage()]),
                      extra=['status.phase']),
    }
    progress_storages = {
        'smart': progress.SmartProgressStorage,
        'custom': lambda: progress.SmartProgressStorage(prefix='my-op.example.com'),
    }
    cases = []
    for cname, config in configs.items():
        for bname, body in bodies_.items():
            storage = config['storage']()
            body_ = bodies.Body(copy.deepcopy(body))
            essence = storage.build(body=body_, extra_fields=config['extra'])
            pname = 'custom' if cname == 'custom' else 'smart'
            cleared = progress_storages[pname]().clear(essence=copy.deepcopy(essence))
            patch = patches.Patch()
            storage.store(body=body_, patch=patch, essence=cleared)
            fetched = storage.fetch(body=body_)
            cases.append(dict(config=cname, body=bname, extra=config['extra'], progress=pname,
                              essence=essence, cleared=cleared, stored=dict(patch), fetched=fetched))
    return dict(bodies=bodies_, cases=cases)


# --------------------------------------------------------------------------------------------
# Diffs

def diff_items(d):
    """Kopf's diff order follows set iteration, so the items are sorted to compare as sets."""
    items = [[str(op), list(path), old, new] for op, path, old, new in d]
    return sorted(items, key=lambda item: json.dumps(item[:2]))


def diffs_fixture():
    pairs = [
        (None, None), (None, {'a': 1}), ({'a': 1}, None), ({'a': 1}, {'a': 1}), ({'a': 1}, {'a': 2}),
        ({'a': 1}, {'b': 1}), ({'a': {'b': {'c': 1}}}, {'a': {'b': {'c': 2, 'd': 3}}}),
        ({'a': [1, 2]}, {'a': [1, 2, 3]}), ({'a': [1, 2]}, {'a': [1, 2]}), ({'a': None}, {}), ({}, {'a': None}),
        ({'a': None}, {'a': 1}), ({'a': 1}, {'a': None}), ({'a': {'x': 1}}, {'a': 'text'}), ({'a': 'text'}, {'a': {'x': 1}}),
        ({'a': {}}, {'a': {'x': 1}}), ({'a': {'x': 1}}, {'a': {}}), ('a', 'b'), (1, 1), ([1], [2]), ({'a': [{'x': 1}]}, {'a': [{'x': 2}]}),
        ({'spec': {'field': 'value', 'items': ['a', 'b']}, 'metadata': {'labels': {'l': 'v'}}},
         {'spec': {'field': 'changed', 'items': ['a', 'b']}, 'metadata': {'labels': {'l': 'v', 'm': 'w'}}}),
        ({'a': False}, {'a': 0}), ({'a': True}, {'a': False}), ({'a': ''}, {'a': None}), ({'a': 0}, {}),
    ]
    out = []
    for a, b in pairs:
        out.append(dict(a=a, b=b,
                        full=diff_items(diffs.diff(a, b)),
                        left=diff_items(diffs.diff(a, b, scope=diffs.DiffScope.LEFT)),
                        right=diff_items(diffs.diff(a, b, scope=diffs.DiffScope.RIGHT))))
    reductions = []
    for a, b in pairs[4:9] + pairs[15:17] + pairs[20:22]:
        d = diffs.diff(a, b)
        for path in [[], ['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'x'], ['spec'], ['spec', 'field'], ['metadata', 'labels', 'm'], ['zzz']]:
            reductions.append(dict(a=a, b=b, path=path, result=diff_items(diffs.reduce(d, path))))
    return dict(pairs=out, reductions=reductions)


# --------------------------------------------------------------------------------------------
# Patches: merge-patch content + fns → JSON-patch against a body

def apply_fn(spec):
    def fn(body):
        kind = spec['fn']
        if kind == 'block':
            if spec['value'] not in body.get('metadata', {}).get('finalizers', []):
                body.setdefault('metadata', {}).setdefault('finalizers', []).append(spec['value'])
        elif kind == 'allow':
            while spec['value'] in body.get('metadata', {}).get('finalizers', []):
                body['metadata']['finalizers'].remove(spec['value'])
            if 'finalizers' in body.get('metadata', {}) and not body['metadata']['finalizers']:
                del body['metadata']['finalizers']
        elif kind == 'set':
            target = body
            for key in spec['path'][:-1]:
                target = target.setdefault(key, {})
            target[spec['path'][-1]] = copy.deepcopy(spec['value'])
        elif kind == 'delete':
            target = body
            for key in spec['path'][:-1]:
                target = target[key]
            del target[spec['path'][-1]]
        elif kind == 'append':
            target = body
            for key in spec['path']:
                target = target[key]
            target.append(copy.deepcopy(spec['value']))
        else:
            raise AssertionError(kind)
    return fn


def patches_fixture():
    body = {'apiVersion': 'kopf.dev/v1', 'kind': 'KopfExample',
            'metadata': {'name': 'x', 'namespace': 'default', 'resourceVersion': '123',
                         'finalizers': ['a', 'kopf.zalando.org/KopfFinalizerMarker', 'c'], 'labels': {'l': '1'}},
            'spec': {'list': [1, 2, 3, 4], 'dict': {'x': 1, 'y': {'z': 2}}, 'str': 's'},
            'status': {'phase': 'Pending'}}
    bare = {'metadata': {'name': 'x', 'resourceVersion': '7'}}
    F = 'kopf.zalando.org/KopfFinalizerMarker'
    cases = [
        dict(name='empty', body=body, merge={}, fns=[]),
        dict(name='merge-set', body=body, merge={'spec': {'str': 't', 'new': {'a': 1}}}, fns=[]),
        dict(name='merge-null', body=body, merge={'spec': {'str': None, 'absent': None}, 'status': {'phase': None}}, fns=[]),
        dict(name='merge-same', body=body, merge={'spec': {'str': 's'}}, fns=[]),
        dict(name='merge-list', body=body, merge={'spec': {'list': [9]}}, fns=[]),
        dict(name='merge-labels', body=body, merge={'metadata': {'labels': {'l': None, 'm': '2'}, 'annotations': {'a': 'b'}}}, fns=[]),
        dict(name='merge-status', body=body, merge={'status': {'create_fn': {'message': 'hi'}, 'phase': 'Done'}}, fns=[]),
        dict(name='block-absent', body=bare, merge={}, fns=[dict(fn='block', value=F)]),
        dict(name='block-present', body=body, merge={}, fns=[dict(fn='block', value=F)]),
        dict(name='block-append', body=dict(bare, metadata=dict(bare['metadata'], finalizers=['other'])), merge={},
             fns=[dict(fn='block', value=F)]),
        dict(name='allow-only', body=dict(bare, metadata=dict(bare['metadata'], finalizers=[F])), merge={},
             fns=[dict(fn='allow', value=F)]),
        dict(name='allow-middle', body=body, merge={}, fns=[dict(fn='allow', value=F)]),
        dict(name='merge-then-fns', body=body, merge={'spec': {'str': 'merged'}}, fns=[dict(fn='set', path=['spec', 'str'], value='fn')]),
        dict(name='fn-set-deep', body=body, merge={}, fns=[dict(fn='set', path=['spec', 'dict', 'y', 'z'], value=[1, {'a': None}])]),
        dict(name='fn-delete', body=body, merge={}, fns=[dict(fn='delete', path=['spec', 'dict'])]),
        dict(name='fn-append', body=body, merge={}, fns=[dict(fn='append', path=['spec', 'list'], value=5)]),
        dict(name='fn-status', body=body, merge={}, fns=[dict(fn='set', path=['status', 'phase'], value='Done'),
                                                          dict(fn='set', path=['spec', 'str'], value='x')]),
        dict(name='slash-tilde', body=body, merge={'metadata': {'annotations': {'kopf.zalando.org/x~y': 'v'}}}, fns=[]),
    ]
    out = []
    for case in cases:
        patch = patches.Patch(copy.deepcopy(case['merge']), fns=[apply_fn(f) for f in case['fns']])
        transformed = copy.deepcopy(case['body'])
        patch._apply_patch(transformed, (), dict(patch))
        for fn in patch.fns:
            fn(transformed)
        ops = patch.as_json_patch(copy.deepcopy(case['body']))
        out.append(dict(case, ops=ops, transformed=transformed, truthy=bool(patch)))

    results = []
    for handler_id, result, existing in [
        ('fn', None, {}), ('fn', {'message': 'x'}, {}), ('fn', {'b': 2}, {'status': {'fn': {'a': 1, 'b': 1}}}),
        ('fn', 'text', {'status': {'fn': {'a': 1}}}), ('fn/sub', [1, 2], {}), ('fn', 0, {}), ('fn', False, {}),
        ('fn', {}, {}),
    ]:
        outcome = execution.Outcome(final=True, result=result)
        patch = patches.Patch(copy.deepcopy(existing))
        progression.deliver_results(outcomes={handler_id: outcome}, patch=patch)
        results.append(dict(id=handler_id, result=result, patch=existing, after=dict(patch)))
    failed = patches.Patch()
    progression.deliver_results(outcomes={'fn': execution.Outcome(final=True, result={'a': 1}, exception=Exception('x'))}, patch=failed)
    results.append(dict(id='fn', result={'a': 1}, failed=True, patch={}, after=dict(failed)))
    return dict(cases=out, results=results)


# --------------------------------------------------------------------------------------------
# A cause's states: store only what changed, purge handlers and their sub-handlers

def progression_fixture():
    storage = progress.SmartProgressStorage()
    enc = lambda r: json.dumps(r, separators=(',', ':'))
    started = '2026-11-22T03:18:01.949187+00:00'
    body = {'metadata': {'annotations': {
        'kopf.zalando.org/a': enc({'started': started, 'purpose': 'create', 'retries': 1, 'success': True, 'failure': False}),
        'kopf.zalando.org/b': enc({'started': started, 'purpose': 'create', 'retries': 1, 'success': False, 'failure': False,
                                   'message': 'None', 'subrefs': ['b/x', 'b/y']}),
        'kopf.zalando.org/b.x': enc({'started': started, 'purpose': 'create', 'retries': 1, 'success': True, 'failure': False}),
        'kopf.zalando.org/old': enc({'started': started, 'purpose': 'update', 'retries': 1, 'success': False, 'failure': False}),
        'kopf.zalando.org/foreign': enc({'started': started, 'retries': 1}),
    }}}

    class H:
        def __init__(self, id):
            self.id = id

    LOOP.t = 5.0
    handlers = [H('a'), H('b'), H('c'), H('old')]
    state = progression.State.from_storage(body=bodies.Body(body), storage=storage, handlers=handlers)
    loaded = {k: state[k].as_in_storage() for k in state}
    state = state.with_purpose('create').with_handlers([H('a'), H('b'), H('c')])
    store_unchanged = patches.Patch()
    state.store(body=bodies.Body(body), patch=store_unchanged, storage=storage)
    outcomes = {'c': execution.Outcome(final=True, result=None),
                'b': execution.Outcome(final=False, delay=None, exception=execution.HandlerChildrenRetry(delay=None),
                                       subrefs=['b/z'])}
    state = state.with_outcomes(outcomes)
    stored = patches.Patch()
    state.store(body=bodies.Body(body), patch=stored, storage=storage)
    purged = patches.Patch(copy.deepcopy(dict(stored)))
    state.purge(body=bodies.Body(body), patch=purged, storage=storage, handlers=[H('a'), H('b'), H('c')])
    summary = dict(done=state.done, delays=list(state.delays), delay=state.delay,
                   counts=list(state.counts), extras={k: list(v) for k, v in state.extras.items()})
    LOOP.t = 0.0
    return dict(body=body, now=iso(BASETIME + datetime.timedelta(seconds=5.0)),
                loaded=loaded, storeUnchanged=dict(store_unchanged), stored=dict(stored), purged=dict(purged),
                summary=summary)


# --------------------------------------------------------------------------------------------

FIXTURES = {
    'keys.json': keys_fixture,
    'json.json': json_fixture,
    'timestamps.json': timestamps_fixture,
    'records.json': records_fixture,
    'outcomes.json': outcomes_fixture,
    'storages.json': storages_fixture,
    'essence.json': essence_fixture,
    'diffs.json': diffs_fixture,
    'patches.json': patches_fixture,
    'progression.json': progression_fixture,
}


def render(value, level=0):
    """JSON with the top levels spread out and each case on one line: small, and diffable."""
    pad = ' ' * (level + 1)
    if isinstance(value, dict) and level < 2 and value:
        items = [f'{pad}{json.dumps(k, ensure_ascii=False)}: {render(v, level + 1)}' for k, v in value.items()]
        return '{\n' + ',\n'.join(items) + '\n' + ' ' * level + '}'
    if isinstance(value, list) and level < 3 and value and all(isinstance(x, dict) for x in value):
        items = [pad + json.dumps(x, ensure_ascii=False, separators=(',', ':')) for x in value]
        return '[\n' + ',\n'.join(items) + '\n' + ' ' * level + ']'
    return json.dumps(value, ensure_ascii=False, separators=(',', ':'))


def main() -> int:
    check = '--check' in sys.argv[1:]
    OUT.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, produce in FIXTURES.items():
        data = dict(kopf=importlib.metadata.version('kopf'), data=produce())
        text = render(data) + '\n'
        path = OUT / name
        if check:
            if not path.exists() or path.read_text(encoding='utf-8') != text:
                stale.append(name)
        else:
            path.write_text(text, encoding='utf-8')
    if stale:
        print(f"Fixtures differ from what Kopf produces now: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
