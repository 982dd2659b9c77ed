import { describe, expect, it } from 'vitest';
import { withoutPastedData } from './pasted-data.js';

const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAYAAAD0eNT6AAAABHNCSVQICAgIfAhkiAAAAAlwSFlzAAAN1wAADdcBQ';

describe('withoutPastedData', () => {
  it('drops a base64 image, a data URL and a hash, and keeps the request', () => {
    expect(withoutPastedData(`What does this base64 image mean? ${IMAGE}`).trim()).toBe(
      'What does this base64 image mean?',
    );
    expect(withoutPastedData(`describe data:image/png;base64,${IMAGE}=`).replace(/\s+/g, ' ')).toBe(
      'describe data:image/png;base64, ',
    );
    expect(
      withoutPastedData(
        'verify the checksum 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      ),
    ).toBe('verify the checksum  ');
  });

  it('keeps long words, identifiers with one number, and everything short', () => {
    for (const query of [
      'Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz aufheben',
      'call getKubernetesClusterAutoscalerConfiguration2 now',
      'get_weather_forecast_for_city_by_name_and_country_v2',
      'list my open pull requests',
      'a1b2c3',
    ]) {
      expect(withoutPastedData(query)).toBe(query);
    }
  });

  it('leaves a query that is nothing but data as it is', () => {
    expect(withoutPastedData(IMAGE)).toBe(IMAGE);
    expect(withoutPastedData(`  ${IMAGE}  `)).toBe(`  ${IMAGE}  `);
  });
});
