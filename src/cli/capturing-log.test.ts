import { describe, expect, it } from 'vitest';
import { CapturingLog } from './capturing-log.js';

describe('CapturingLog', () => {
  it('keeps the stderr lines the transport logs at debug, for doctor to explain a failure', () => {
    const log = new CapturingLog();
    log.debug({ stream: 'stderr' }, 'npm error code E404');
    log.exited({ code: 1, signal: null });
    expect(log.explain('connection closed')).toBe(
      'connection closed (process exited with code 1; stderr: npm error code E404)',
    );
  });
});
