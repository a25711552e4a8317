import { Metrics } from './metrics.js';

describe('Metrics: the request histogram', () => {
  it('counts each request in the first bucket whose bound it does not exceed (le), cumulatively, with its sum and count', async () => {
    const metrics = new Metrics();
    for (const seconds of [0.001, 0.003, 0.003, 100]) metrics.observeRequest('GET', '/api/v1/me', 200, seconds);
    metrics.observeRequest('POST', '/api/v1/me', 405, 0.02);
    const text = await metrics.registry.metrics();
    const lines = text.split('\n').filter((l) => l.startsWith('epr_http_request_duration_seconds'));
    const series = '{method="GET",route="/api/v1/me",status="200"';
    expect(lines).toEqual(
      expect.arrayContaining([
        `epr_http_request_duration_seconds_bucket${series},le="0.001"} 1`,
        `epr_http_request_duration_seconds_bucket${series},le="0.005"} 3`,
        `epr_http_request_duration_seconds_bucket${series},le="30"} 3`,
        `epr_http_request_duration_seconds_bucket${series},le="+Inf"} 4`,
        `epr_http_request_duration_seconds_sum${series}} 100.007`,
        `epr_http_request_duration_seconds_count${series}} 4`,
        'epr_http_request_duration_seconds_count{method="POST",route="/api/v1/me",status="405"} 1',
      ]),
    );
    expect(text).toContain('# TYPE epr_http_request_duration_seconds histogram');
  });
});
