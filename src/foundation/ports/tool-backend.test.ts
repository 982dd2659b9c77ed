import { describe, expect, it } from 'vitest';
import { callerKey, sessionOf } from './tool-backend.js';

describe('callerKey', () => {
  it('names the method with the identity, so one name proven two ways is two callers', () => {
    expect(callerKey({ identity: 'ka', authMethod: 'api_key' })).toBe('apikey:ka');
    expect(callerKey({ identity: 'ka', authMethod: 'jwt' })).toBe('jwt:ka');
    // Callers no credential proved keep their fixed, readable names.
    expect(callerKey({ identity: 'local' })).toBe('local');
    expect(callerKey({ identity: 'anonymous' })).toBe('anonymous');
  });
});

describe('sessionOf', () => {
  it('links the searches and runs of a session-less caller by method and identity', () => {
    expect(sessionOf({ identity: 'ka', authMethod: 'api_key' })).not.toBe(
      sessionOf({ identity: 'ka', authMethod: 'jwt' }),
    );
    expect(sessionOf({ identity: 'ka', authMethod: 'jwt', sessionId: 's1' })).toBe('s1');
  });
});
