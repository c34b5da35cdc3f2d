/**
 * Several operators on one cluster: started side by side, they find each other through the
 * peering object and keep out of each other's way. Run one normally and one with `--dev`: the
 * first pauses while the second runs, and resumes when it exits (README.md beside this file).
 */
import { on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

on.create(KopfExample, function create_fn() {});
