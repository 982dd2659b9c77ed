import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, type SendMessageRequest } from '@a2a-js/sdk';

/** A text part, as the A2A SDK's types spell it. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

/** A data part (a JSON value). */
export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** A user message with these parts. */
export function userMessage(parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A `SendMessage` request for these parts (blocking unless `returnImmediately`). */
export function sendRequest(parts: Part[], returnImmediately = false): SendMessageRequest {
  const configuration = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately };
  return { tenant: '', message: userMessage(parts), configuration, metadata: undefined };
}
