import { describe, expect, it } from 'vitest';
import { metricsUrl, signalUrl } from './otlp-urls.js';

describe('signalUrl', () => {
  it('adds /v1/<signal> to a base URL, with or without a path or a trailing slash', () => {
    expect(metricsUrl('http://collector:4318')).toBe('http://collector:4318/v1/metrics');
    expect(metricsUrl('http://collector:4318/otel/')).toBe('http://collector:4318/otel/v1/metrics');
    expect(signalUrl('http://collector:4318', 'traces')).toBe('http://collector:4318/v1/traces');
  });

  it('turns one signal URL given in full into the other beside it', () => {
    expect(metricsUrl('https://c.example/otel/v1/traces')).toBe('https://c.example/otel/v1/metrics');
    expect(signalUrl('https://c.example/v1/metrics', 'traces')).toBe('https://c.example/v1/traces');
  });
});
