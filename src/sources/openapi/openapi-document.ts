/**
 * The parts of a dereferenced OpenAPI 3.0 / 3.1 document this source reads. The document has
 * been validated by swagger-parser before it is seen through these types, and every `$ref` has
 * been replaced by its target (circular ones by a shared object: walk schemas with care).
 */
export interface OpenApiDocument {
  openapi: string;
  info?: { title?: string; version?: string };
  servers?: ServerObject[];
  paths?: Record<string, PathItemObject | undefined>;
}

export interface ServerObject {
  url: string;
  variables?: Record<string, { default: string; enum?: string[] }>;
}

export type SchemaObject = Record<string, unknown>;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItemObject = {
  [M in HttpMethod]?: OperationObject;
} & {
  summary?: string;
  description?: string;
  servers?: ServerObject[];
  parameters?: ParameterObject[];
};

export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  deprecated?: boolean;
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses?: Record<string, ResponseObject | undefined>;
  servers?: ServerObject[];
}

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ParameterObject {
  name: string;
  in: ParameterLocation;
  description?: string;
  required?: boolean;
  deprecated?: boolean;
  style?: string;
  explode?: boolean;
  schema?: SchemaObject;
  content?: Record<string, MediaTypeObject | undefined>;
  example?: unknown;
}

export interface MediaTypeObject {
  schema?: SchemaObject;
}

export interface RequestBodyObject {
  description?: string;
  required?: boolean;
  content?: Record<string, MediaTypeObject | undefined>;
}

export interface ResponseObject {
  description?: string;
  content?: Record<string, MediaTypeObject | undefined>;
}

/** One operation with what it inherits from its path item. */
export interface OperationInfo {
  method: HttpMethod;
  /** The path template, e.g. `/pets/{petId}`. */
  path: string;
  operation: OperationObject;
  /** Path-level parameters merged with the operation's (the operation's win by name + location). */
  parameters: ParameterObject[];
  /** The servers that apply: the operation's, else the path item's, else the document's. */
  servers: ServerObject[];
}

/** Every operation of the document, in document order. */
export function listOperations(document: OpenApiDocument): OperationInfo[] {
  const operations: OperationInfo[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!item) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const merged = new Map<string, ParameterObject>();
      for (const p of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        merged.set(`${p.in}:${p.name}`, p);
      }
      operations.push({
        method,
        path,
        operation,
        parameters: [...merged.values()],
        servers: nonEmpty(operation.servers) ?? nonEmpty(item.servers) ?? document.servers ?? [],
      });
    }
  }
  return operations;
}

function nonEmpty<T>(list: T[] | undefined): T[] | undefined {
  return list && list.length > 0 ? list : undefined;
}

/** True for `application/json`, `application/problem+json`, `application/vnd.x+json; charset=…`. */
export function isJsonMediaType(mediaType: string): boolean {
  const essence = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || essence.endsWith('+json');
}
