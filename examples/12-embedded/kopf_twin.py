# The Python Kopf application that example.ts ports: Kopf's 12-embedded, with the objects created
# and deleted through Kopf's own connection info (pykube is not installed), and the application
# waiting for the operator's greetings instead of sleeping.
import asyncio
import contextlib
import json
import threading
import urllib.request

import kopf


@kopf.on.create('kopfexamples')
def create_fn(memo, name, **_):
    print(memo.create_tpl.format(name=name))
    memo.greetings[f'created:{name}'].set()


@kopf.on.delete('kopfexamples')
def delete_fn(memo, name, **_):
    print(memo.delete_tpl.format(name=name))
    memo.greetings[f'deleted:{name}'].set()


def kopf_thread(ready_flag, stop_flag, greetings):
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    with contextlib.closing(loop):
        kopf.configure(verbose=True)  # log formatting
        loop.run_until_complete(kopf.operator(
            ready_flag=ready_flag,
            stop_flag=stop_flag,
            memo=kopf.Memo(
                create_tpl="Hello, {name}!",
                delete_tpl="Good bye, {name}!",
                greetings=greetings,
            ),
        ))


def main(steps=3):
    # Start the operator and let it initialise.
    print("Starting the main app.")
    ready_flag = threading.Event()
    stop_flag = threading.Event()
    greetings = {f'{what}:kopf-example-{step}': threading.Event()
                 for step in range(steps) for what in ['created', 'deleted']}
    thread = threading.Thread(target=kopf_thread, kwargs=dict(
        stop_flag=stop_flag,
        ready_flag=ready_flag,
        greetings=greetings,
    ))
    thread.start()
    ready_flag.wait()

    # The operator is active: run the app's activity.
    for step in range(steps):
        print(f"Do the main app activity here. Step {step+1}/{steps}.")
        body = dict(apiVersion='kopf.dev/v1', kind='KopfExample', metadata=dict(name=f'kopf-example-{step}'))
        _request('POST', '', body)
        greetings[f'created:kopf-example-{step}'].wait()
        _request('DELETE', f'/kopf-example-{step}')
        greetings[f'deleted:kopf-example-{step}'].wait()

    # Ask the operator to terminate gracefully (can take a couple of seconds).
    print("Exiting the main app.")
    stop_flag.set()
    thread.join()


def _request(method, suffix, body=None):
    info = kopf.login_with_kubeconfig(settings=kopf.OperatorSettings())
    url = f'{info.server}/apis/kopf.dev/v1/namespaces/default/kopfexamples{suffix}'
    data = json.dumps(body).encode() if body is not None else None
    headers = {'Content-Type': 'application/json', **info.as_http_headers()}
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    urllib.request.urlopen(request, context=info.as_ssl_context()).read()


if __name__ == '__main__':
    main()
