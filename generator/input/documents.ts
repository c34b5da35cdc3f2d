/**
 * The CustomResourceDefinitions in parsed YAML documents: also inside `kind: List`; other
 * documents are skipped with a note; the retired `apiextensions.k8s.io/v1beta1` is an error.
 */
import type { Diagnostic, PathSegment } from '../diagnostics/diagnostic.ts';
import { isJsonMap } from './json.ts';
import type { Json, JsonMap } from './json.ts';
import type { YamlDocument } from './yaml.ts';

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';

export interface CrdDocument {
  readonly file: string;
  readonly document: number;
  /** `[]`, or `['items', i]` inside a List. */
  readonly path: readonly PathSegment[];
  readonly value: JsonMap;
}

export function extractCrds(file: string, documents: readonly YamlDocument[]): {
  crds: CrdDocument[];
  diagnostics: Diagnostic[]
} {
  const crds: CrdDocument[] = [];
  const diagnostics: Diagnostic[] = [];
  const visit = (value: Json, document: number, path: PathSegment[]): void => {
    const at = { file, document, path };
    if (!isJsonMap(value)) {
      diagnostics.push({ severity: 'note', ...at, message: 'skipped: not a Kubernetes object' });
      return;
    }
    const kind = value['kind'];
    const apiVersion = value['apiVersion'];
    if (kind === 'List' || (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(value['items']))) {
      const items = value['items'];
      if (!Array.isArray(items)) {
        diagnostics.push(
          { severity: 'error', ...at, path: [...path, 'items'], message: 'a List needs an `items` array' }
        );
        return;
      }
      items.forEach((item, i) => visit(item, document, [...path, 'items', i]));
      return;
    }
    if (kind !== 'CustomResourceDefinition') {
      diagnostics.push(
        {
          severity: 'note',
          ...at,
          message: `skipped: not a CustomResourceDefinition (kind: ` +
            `${typeof kind === 'string' ? kind : JSON.stringify(kind ?? null)})`,
        }
      );
      return;
    }
    if (apiVersion === 'apiextensions.k8s.io/v1beta1') {
      diagnostics.push({
        severity: 'error', ...at, path: [...path, 'apiVersion'],
        message: 'apiextensions.k8s.io/v1beta1 CRDs are not supported (removed in Kubernetes 1.22); convert the CRD ' +
          'to apiextensions.k8s.io/v1',
      });
      return;
    }
    if (apiVersion !== CRD_API_VERSION) {
      diagnostics.push(
        {
          severity: 'error',
          ...at,
          path: [...path, 'apiVersion'],
          message: `unsupported apiVersion ${JSON.stringify(apiVersion ?? null)} for a CustomResourceDefinition; ` +
            `expected ${CRD_API_VERSION}`,
        }
      );
      return;
    }
    crds.push({ file, document, path, value });
  };
  for (const doc of documents) visit(doc.value, doc.index, []);
  return { crds, diagnostics };
}
