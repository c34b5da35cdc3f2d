/**
 * `kopf/testing`: what tests of operators need besides the operator itself.
 * A local control plane (etcd + kube-apiserver, found or built once, started in about a second).
 */
export {
  ControlPlane, ControlPlaneCrashError, ControlPlaneStartError, startControlPlane,
} from './testing/controlplane/controlplane.ts';
export type {
  ControlPlaneOptions,
  ControlPlaneProcessName,
  RestartOptions,
} from './testing/controlplane/controlplane.ts';
export type { CrdSource } from './testing/controlplane/crd-installation.ts';
export type { ApiCredentials } from './testing/controlplane/requests.ts';
export { BinariesNotFoundError, ensureBinaries, lookUpBinaries } from './testing/controlplane/binaries.ts';
export type { ControlPlaneBinaries, EnsureOptions } from './testing/controlplane/binaries.ts';
export { BuildError } from './testing/controlplane/building.ts';
export { ETCD_VERSION, KUBERNETES_VERSION } from './testing/controlplane/versions.ts';
/** The operator's conversions as its webhook makes them (checks, kept fields), for tests of converters. */
export { ConversionFailure, Conversions } from './conversion/converting.ts';
export {
  runOperator,
  type OperatorExit,
  type OperatorRunOptions,
  type RunningOperator,
  type WaitOptions,
} from './testing/runner.ts';
export { VirtualClock } from './testing/virtual-clock.ts';
