import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ToolContext, ToolDefinition } from '../local/define-tool.js';
import { encodePlantUml } from './plantuml-codec.js';
import { plantumlDecodeTool, plantumlEncodeTool } from './plantuml-tools.js';

const ctx: ToolContext = {
  signal: new AbortController().signal,
  progress: () => {},
  log: silentLogger,
  caller: { identity: 'test' },
};

const run = (tool: ToolDefinition, args: Record<string, unknown>): unknown => tool.handler(args, ctx);

function failure(tool: ToolDefinition, args: Record<string, unknown>): GatewayError {
  try {
    run(tool, args);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the handler to throw');
}

describe('plantuml:encode', () => {
  it('has the expected id parts', () => {
    expect(plantumlEncodeTool.namespace).toBe('plantuml');
    expect(plantumlEncodeTool.name).toBe('encode');
  });

  it('builds an SVG URL on the public server by default', async () => {
    expect(await run(plantumlEncodeTool, { source: 'Bob -> Alice : hello' })).toEqual({
      url: 'https://www.plantuml.com/plantuml/svg/SyfFKj2rKt3CoKnELR1Io4ZDoSa70000',
      encoded: 'SyfFKj2rKt3CoKnELR1Io4ZDoSa70000',
      format: 'svg',
    });
  });

  it('honours format and server, stripping trailing slashes', async () => {
    const source = '@startuml\nA -> B\n@enduml';
    const encoded = await encodePlantUml(source);
    expect(
      await run(plantumlEncodeTool, { source, format: 'png', server: 'http://localhost:8080/plantuml/' }),
    ).toEqual({
      url: `http://localhost:8080/plantuml/png/${encoded}`,
      encoded,
      format: 'png',
    });
    const txt = await run(plantumlEncodeTool, { source, format: 'txt', server: 'https://uml.example.com//' });
    expect(txt).toMatchObject({ url: `https://uml.example.com/txt/${encoded}` });
  });

  it('rejects blank source', () => {
    const error = failure(plantumlEncodeTool, { source: '  \n\t ' });
    expect(error.code).toBe('validation_input');
    expect(error.details).toMatchObject({ path: '/source' });
  });

  it('counts the size limit in UTF-8 bytes, not characters', async () => {
    await expect(run(plantumlEncodeTool, { source: 'a'.repeat(51200) })).resolves.toHaveProperty('encoded');
    // 17067 three-byte characters: under 51200 characters, over 51200 bytes.
    const error = failure(plantumlEncodeTool, { source: '€'.repeat(17067) });
    expect(error.code).toBe('validation_input');
    expect(error.details?.reason).toMatch(/51201 bytes.*51200/);
  });

  it('rejects non-http servers, query strings, credentials and bad formats', () => {
    expect(failure(plantumlEncodeTool, { source: 'a', server: 'ftp://x.org' }).details?.reason).toMatch(
      /http or https/,
    );
    expect(failure(plantumlEncodeTool, { source: 'a', server: 'not a url' }).details?.path).toBe('/server');
    expect(
      failure(plantumlEncodeTool, { source: 'a', server: 'https://x.org/p?x=1' }).details?.reason,
    ).toMatch(/query/);
    expect(failure(plantumlEncodeTool, { source: 'a', server: 'https://u:p@x.org' }).details?.reason).toMatch(
      /credentials/,
    );
    expect(failure(plantumlEncodeTool, { source: 'a', format: 'pdf' }).details?.path).toBe('/format');
  });
});

describe('plantuml:decode', () => {
  it('decodes a bare encoded text', () => {
    expect(run(plantumlDecodeTool, { encoded: 'SyfFKj2rKt3CoKnELR1Io4ZDoSa70000' })).toEqual({
      source: 'Bob -> Alice : hello',
    });
  });

  it('decodes the last path segment of a URL', async () => {
    const source = '@startuml\nBob -> Alice : hello\n@enduml';
    for (const url of [
      'https://www.plantuml.com/plantuml/svg/SoWkIImgAStDuNBAJrBGjLDmpCbCJbMmKiX8pSd9vt98pKi1IW80',
      'http://localhost:8080/uml/SoWkIImgAStDuNBAJrBGjLDmpCbCJbMmKiX8pSd9vt98pKi1IW80/',
      `HTTPS://plantuml.example.com/png/~0${await encodePlantUml(source)}`,
    ]) {
      expect(run(plantumlDecodeTool, { encoded: url })).toEqual({ source });
    }
  });

  it('round-trips with plantuml:encode', async () => {
    const source = '@startmindmap\n* Root\n** Zweig ü\n*** 葉\n@endmindmap';
    const { encoded } = (await run(plantumlEncodeTool, { source })) as { encoded: string };
    expect(run(plantumlDecodeTool, { encoded })).toEqual({ source });
  });

  it('reports undecodable input as validation_input', () => {
    expect(failure(plantumlDecodeTool, { encoded: 'abc$' }).code).toBe('validation_input');
    expect(failure(plantumlDecodeTool, { encoded: 'https://www.plantuml.com/' }).details?.reason).toMatch(
      /no path segment/,
    );
    expect(failure(plantumlDecodeTool, { encoded: 'https://x.org/svg/%E0%A4%A' }).details?.reason).toMatch(
      /percent-escape/,
    );
  });
});
