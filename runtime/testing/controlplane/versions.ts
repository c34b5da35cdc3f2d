/**
 * The versions of the local control plane, in one place: changing a number here rebuilds into a
 * fresh cache folder, so binaries of different versions never mix.
 */
export const KUBERNETES_VERSION = '1.36.3';
export const ETCD_VERSION = '3.6.16';

/** The binaries a control plane consists of, by their envtest names. */
export const BINARY_NAMES = ['kube-apiserver', 'etcd', 'kubectl'] as const;
export type BinaryName = (typeof BINARY_NAMES)[number];

/** The folder name under the cache: both versions and the platform, as a Go build is per platform. */
export function cacheFolderName(platform: string = process.platform, arch: string = process.arch): string {
  return `v${KUBERNETES_VERSION}-etcd-v${ETCD_VERSION}-${platform}-${arch}`;
}
