import type { HttpMethod, ParameterLocation } from './openapi-document.js';

/** How one tool argument becomes one HTTP parameter. */
export interface ParameterBinding {
  /** The parameter's name on the wire. */
  name: string;
  in: ParameterLocation;
  /** The tool argument holding its value (differs from `name` after a collision). */
  argName: string;
  /** OpenAPI serialisation style (`simple`, `form`, `label`, `matrix`, `deepObject`, …). */
  style: string;
  explode: boolean;
  /** True for a parameter described by `content` (not `schema`): its value is sent as JSON text. */
  json: boolean;
}

/** How the request body is encoded. */
export type BodyEncoding = 'json' | 'form' | 'text';

/** The request body: always the tool argument `body`. */
export interface BodyBinding {
  argName: 'body';
  /** The media type sent as Content-Type, as the document names it. */
  mediaType: string;
  encoding: BodyEncoding;
  required: boolean;
}

/** Everything the backend needs to turn a tool's arguments into one HTTP request. */
export interface OperationBinding {
  method: HttpMethod;
  /** The path template, e.g. `/pets/{petId}`. */
  path: string;
  parameters: ParameterBinding[];
  body?: BodyBinding;
}

/** The argument that holds the request body. */
export const BODY_ARG = 'body';
