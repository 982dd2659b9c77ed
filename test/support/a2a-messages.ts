import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, type SendMessageRequest } from '@a2a-js/sdk';

export { dataPart, textPart } from '../../src/surfaces/a2a/a2a-parts.js';

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
