/**
 * kopf-gen's programmatic API: `generate({ inputs, outDir, stubsDir?, check?, force? })`, the
 * same run as the `kopf-gen` command, and the model that handler stubs and tools read.
 */
export { generate, NoCrdsError, OverwriteError } from './pipeline/generate.ts';
export type { GenerateOptions, GenerateResult, ProgressEvent } from './pipeline/generate.ts';
export type { StubsExtension, StubsMissing, StubsReport } from './stubs/index.ts';
export { UnsafePathError } from './paths.ts';
export { InputError, formatDiagnostic, formatPath } from './diagnostics/diagnostic.ts';
export type { Diagnostic, Location, PathSegment, Severity } from './diagnostics/diagnostic.ts';
export { buildModel } from './model/build.ts';
export { modulePath } from './model/model.ts';
export type {
  ArrayNode,
  IntOrStringNode,
  JsonNode,
  MapNode,
  MetadataNode,
  Model,
  NodeInfo,
  ObjectNode,
  PrinterColumnModel,
  Property,
  ResourceModel, ScalarNode, ScaleModel, SchemaNode, Scope, SourceRef, ValidationRule, VersionModel,
} from './model/model.ts';
export { renderFiles } from './emit/render.ts';
export { MANIFEST_FILE } from './output/manifest.ts';
export { GENERATOR_VERSION } from './version.ts';
