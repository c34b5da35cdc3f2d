/** What `./generated/example.com/v1alpha1.ts` stands for in docs/versions.md: examples/19-versions' older version. */
export * from '../../../../../examples/19-versions/generated/example.com/v1alpha1.ts';
