import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

const options = { failureThreshold: 3, cooldownMs: 1000 };

function tripped(now = 0): CircuitBreaker {
  const breaker = new CircuitBreaker(options);
  for (let i = 0; i < 3; i++) breaker.record('failure', false, now);
  return breaker;
}

describe('CircuitBreaker', () => {
  it('opens after failureThreshold consecutive failures, not before', () => {
    const breaker = new CircuitBreaker(options);
    breaker.record('failure', false, 0);
    breaker.record('failure', false, 0);
    expect(breaker.state).toBe('closed');
    expect(breaker.record('failure', false, 0)).toEqual({ from: 'closed', to: 'open' });
    expect(breaker.acquire(0)).toEqual({ allowed: false, retryAfterMs: 1000 });
  });

  it('counts only consecutive failures: a success in between starts over; neutral ends change nothing', () => {
    const breaker = new CircuitBreaker(options);
    breaker.record('failure', false, 0);
    breaker.record('failure', false, 0);
    breaker.record('success', false, 0);
    breaker.record('failure', false, 0);
    breaker.record('neutral', false, 0);
    breaker.record('failure', false, 0);
    expect(breaker.state).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(2);
  });

  it('refuses until the cool-down passed, then lets exactly one probe through', () => {
    const breaker = tripped();
    expect(breaker.acquire(999)).toEqual({ allowed: false, retryAfterMs: 1 });
    expect(breaker.acquire(1000)).toEqual({ allowed: true, probe: true });
    expect(breaker.state).toBe('half_open');
    expect(breaker.acquire(1001).allowed).toBe(false);
  });

  it('closes when the probe succeeds', () => {
    const breaker = tripped();
    breaker.acquire(1000);
    expect(breaker.record('success', true, 1100)).toEqual({ from: 'half_open', to: 'closed' });
    expect(breaker.acquire(1100)).toEqual({ allowed: true, probe: false });
    expect(breaker.consecutiveFailures).toBe(0);
  });

  it('opens for another cool-down when the probe fails', () => {
    const breaker = tripped();
    breaker.acquire(1000);
    expect(breaker.record('failure', true, 1500)).toEqual({ from: 'half_open', to: 'open' });
    expect(breaker.acquire(2499)).toEqual({ allowed: false, retryAfterMs: 1 });
    expect(breaker.acquire(2500)).toEqual({ allowed: true, probe: true });
  });

  it('lets the next call probe when a probe ends neutral (cancelled)', () => {
    const breaker = tripped();
    breaker.acquire(1000);
    expect(breaker.record('neutral', true, 1100)).toBeUndefined();
    expect(breaker.state).toBe('half_open');
    expect(breaker.acquire(1100)).toEqual({ allowed: true, probe: true });
  });

  it('ignores late outcomes of calls let through before it opened', () => {
    const breaker = tripped();
    expect(breaker.record('success', false, 10)).toBeUndefined();
    expect(breaker.state).toBe('open');
    breaker.acquire(1000);
    breaker.record('failure', false, 1001);
    expect(breaker.state).toBe('half_open');
  });

  it('counts the failures of one incident once (a crash that took many calls down), distinct incidents each', () => {
    const breaker = new CircuitBreaker(options);
    for (let i = 0; i < 100; i++) breaker.record('failure', false, 0, 'mcp:f#1');
    expect(breaker.state).toBe('closed');
    expect(breaker.consecutiveFailures).toBe(1);
    breaker.record('failure', false, 0, 'mcp:f#2');
    expect(breaker.record('failure', false, 0, 'mcp:f#3')).toEqual({ from: 'closed', to: 'open' });
  });

  it('failures without an incident count each, as before', () => {
    const breaker = new CircuitBreaker(options);
    breaker.record('failure', false, 0, 'mcp:f#1');
    breaker.record('failure', false, 0);
    expect(breaker.record('failure', false, 0)).toEqual({ from: 'closed', to: 'open' });
  });

  it('recover() half-opens an open circuit at once; the next call is the probe', () => {
    const breaker = tripped();
    expect(breaker.recover()).toEqual({ from: 'open', to: 'half_open' });
    expect(breaker.acquire(1)).toEqual({ allowed: true, probe: true });
    expect(breaker.acquire(1).allowed).toBe(false);
    expect(breaker.record('success', true, 1)).toEqual({ from: 'half_open', to: 'closed' });
  });

  it('recover() leaves a closed circuit alone', () => {
    const breaker = new CircuitBreaker(options);
    expect(breaker.recover()).toBeUndefined();
    expect(breaker.state).toBe('closed');
  });
});
