# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
import kopf


@kopf.on.resume('kopfexamples')
def resume_fn_1(**_):
    print('RESUMED 1st')


@kopf.on.create('kopfexamples')
def create_fn_1(**_):
    print('CREATED 1st')


@kopf.on.resume('kopfexamples')
def resume_fn_2(**_):
    print('RESUMED 2nd')


@kopf.on.create('kopfexamples')
def create_fn_2(**_):
    print('CREATED 2nd')


@kopf.on.update('kopfexamples')
def update_fn(old, new, diff, **_):
    print('UPDATED')


@kopf.on.delete('kopfexamples')
def delete_fn_1(**_):
    print('DELETED 1st')


@kopf.on.delete('kopfexamples')
def delete_fn_2(**_):
    print('DELETED 2nd')


@kopf.on.field('kopfexamples', field='spec.field')
def field_fn(old, new, **_):
    print(f'FIELD CHANGED: {old} -> {new}')
