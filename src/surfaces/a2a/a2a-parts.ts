import { randomUUID } from 'node:crypto';
import { type Artifact, type Message, type Part, Role } from '@a2a-js/sdk';
import type { ToolResult } from '../../foundation/model/tool.js';

/**
 * Builders and readers for A2A v1.0 message parts. The SDK's types are generated from the
 * protobuf schema, so every field is required; these helpers fill the defaults in one place.
 */

/** A text part. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

/** A structured-data part (any JSON value; objects are what clients expect). */
export function dataPart(data: unknown): Part {
  return {
    content: { $case: 'data', value: data },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** A message from the agent (this gateway) inside a task. */
export function agentMessage(parts: Part[], ids: { taskId: string; contextId: string }): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId,
    taskId: ids.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** An artifact with a fresh id. */
export function artifact(name: string, description: string, parts: Part[], metadata?: object): Artifact {
  return {
    artifactId: randomUUID(),
    name,
    description,
    parts,
    metadata: metadata === undefined ? undefined : { ...metadata },
    extensions: [],
  };
}

/** The text parts of a message, in order. */
export function textsOf(parts: readonly Part[]): string[] {
  const texts: string[] = [];
  for (const part of parts) if (part.content?.$case === 'text') texts.push(part.content.value);
  return texts;
}

/** The values of a message's data parts, in order. */
export function dataOf(parts: readonly Part[]): unknown[] {
  const values: unknown[] = [];
  for (const part of parts) if (part.content?.$case === 'data') values.push(part.content.value);
  return values;
}

/**
 * A tool result as artifact parts: the structured result as a data part (when there is one), all
 * text blocks joined into one text part, and media or resources as file parts, so an A2A client
 * gets everything an MCP client would.
 */
export function resultParts(result: ToolResult): Part[] {
  const parts: Part[] = [];
  if (result.structuredContent !== undefined) parts.push(dataPart(result.structuredContent));
  const texts: string[] = [];
  const files: Part[] = [];
  for (const block of result.content) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'image':
      case 'audio':
        files.push(rawPart(block.data, block.mimeType, ''));
        break;
      case 'resource_link':
        files.push(urlPart(block.uri, block.mimeType, block.name));
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource && typeof resource.text === 'string') texts.push(resource.text);
        else if ('blob' in resource && typeof resource.blob === 'string')
          files.push(rawPart(resource.blob, resource.mimeType, resource.uri));
        break;
      }
    }
  }
  if (texts.length > 0) parts.push(textPart(texts.join('\n')));
  parts.push(...files);
  // A2A artifacts must carry at least one part; an empty result is an empty text.
  if (parts.length === 0) parts.push(textPart(''));
  return parts;
}

function rawPart(base64: string, mediaType: string | undefined, filename: string): Part {
  return {
    content: { $case: 'raw', value: Buffer.from(base64, 'base64') },
    metadata: undefined,
    filename,
    mediaType: mediaType ?? 'application/octet-stream',
  };
}

function urlPart(url: string, mediaType: string | undefined, filename: string): Part {
  return { content: { $case: 'url', value: url }, metadata: undefined, filename, mediaType: mediaType ?? '' };
}
