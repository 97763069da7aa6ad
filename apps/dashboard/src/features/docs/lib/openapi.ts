// Reads the server's /openapi.json into what the Docs page lists: operations grouped by tag, each with its
// method, path, summary, who may call it, its parameters, request body fields and documented answers.

export interface OperationParameter {
  name: string;
  in: string;
  required: boolean;
  description: string;
}

export interface OperationResponse {
  status: string;
  description: string;
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  /** Names of the security schemes that may call it; empty: public. */
  security: string[];
  parameters: OperationParameter[];
  /** Field names of a JSON or form body, required ones first; null when there is no body. */
  body: { contentType: string; fields: { name: string; required: boolean }[] } | null;
  responses: OperationResponse[];
}

export interface OperationGroup {
  tag: string;
  description: string;
  operations: Operation[];
}

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function resolve(document: Json, value: unknown): Json {
  if (!isRecord(value)) return {};
  const ref = text(value.$ref);
  if (!ref.startsWith('#/')) return value;
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) node = isRecord(node) ? node[part] : undefined;
  return isRecord(node) ? node : {};
}

function bodyOf(document: Json, requestBody: unknown): Operation['body'] {
  const body = resolve(document, requestBody);
  const content = isRecord(body.content) ? body.content : null;
  if (!content) return null;
  const [contentType, media] = Object.entries(content)[0] ?? [];
  if (!contentType) return null;
  const schema = resolve(document, isRecord(media) ? media.schema : undefined);
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const names = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  const fields = [...names.filter((name) => required.includes(name)), ...names.filter((name) => !required.includes(name))];
  return { contentType, fields: fields.map((name) => ({ name, required: required.includes(name) })) };
}

/**
 * Every operation of the document, grouped by its first tag: the tags in `preferred` first, then the document's
 * own tag order, then the rest by name; operations in the document's path order.
 */
export function readOperations(document: unknown, preferred: readonly string[] = []): OperationGroup[] {
  if (!isRecord(document) || !isRecord(document.paths)) return [];
  const tagInfo = new Map<string, string>();
  for (const tag of Array.isArray(document.tags) ? document.tags : []) {
    if (isRecord(tag) && typeof tag.name === 'string') tagInfo.set(tag.name, text(tag.description));
  }
  const groups = new Map<string, Operation[]>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isRecord(item)) continue;
    for (const method of Object.keys(item).filter((key) => (METHODS as readonly string[]).includes(key))) {
      const operation = item[method];
      if (!isRecord(operation)) continue;
      const tag = Array.isArray(operation.tags) && typeof operation.tags[0] === 'string' ? operation.tags[0] : 'other';
      const security = Array.isArray(operation.security)
        ? [...new Set(operation.security.filter(isRecord).flatMap((requirement) => Object.keys(requirement)))]
        : [];
      const parameters = (Array.isArray(operation.parameters) ? operation.parameters : [])
        .map((parameter) => resolve(document, parameter))
        .filter((parameter) => typeof parameter.name === 'string')
        .map((parameter) => ({
          name: text(parameter.name),
          in: text(parameter.in),
          required: parameter.required === true,
          description: text(parameter.description),
        }));
      const responses = Object.entries(isRecord(operation.responses) ? operation.responses : {}).map(([status, response]) => ({
        status,
        description: text(resolve(document, response).description),
      }));
      const list = groups.get(tag) ?? [];
      list.push({
        id: text(operation.operationId) || `${method}-${path}`,
        method: method.toUpperCase(),
        path,
        summary: text(operation.summary),
        description: text(operation.description),
        security,
        parameters,
        body: bodyOf(document, operation.requestBody),
        responses,
      });
      groups.set(tag, list);
    }
  }
  const order = [...preferred, ...tagInfo.keys()];
  const rank = (tag: string) => (order.includes(tag) ? order.indexOf(tag) : order.length);
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([tag, operations]) => ({ tag, description: tagInfo.get(tag) ?? '', operations }));
}

/** Operations whose method, path, summary or tag contain the text (case-insensitive); groups left empty go. */
export function filterOperations(groups: readonly OperationGroup[], search: string): OperationGroup[] {
  const needle = search.trim().toLowerCase();
  if (!needle) return [...groups];
  return groups
    .map((group) => ({
      ...group,
      operations: group.operations.filter((operation) =>
        [operation.method, operation.path, operation.summary, group.tag].some((field) => field.toLowerCase().includes(needle)),
      ),
    }))
    .filter((group) => group.operations.length > 0);
}
