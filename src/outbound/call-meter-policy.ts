/**
 * @module Reports every outbound HTTP attempt with its body bytes (decision 0021: the cost of operations),
 * after the retry policy, so that a retried call counts each attempt it sent, and outside the response
 * size policy, which has read the body into text by then (a status-only call's body is dropped unread:
 * 0 bytes). Bytes are of the bodies as sent and as received (after decompression): what the price of
 * egress is reckoned on, near enough.
 */
import type { PipelinePolicy, PipelineRequest } from '@azure/core-rest-pipeline';

export interface OutboundCallMeter {
  countOutboundCall(bytesSent: number, bytesReceived: number): void;
}

function bodyBytes(body: PipelineRequest['body']): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  if (body instanceof ArrayBuffer) return body.byteLength;
  return 0;
}

export function callMeterPolicy(meter: OutboundCallMeter): PipelinePolicy {
  return {
    name: 'signalboxCallMeterPolicy',
    async sendRequest(request, next) {
      const sent = bodyBytes(request.body);
      try {
        const response = await next(request);
        meter.countOutboundCall(sent, response.bodyAsText ? Buffer.byteLength(response.bodyAsText) : 0);
        return response;
      } catch (error) {
        // Sent (or tried): it counts, with nothing received.
        meter.countOutboundCall(sent, 0);
        throw error;
      }
    },
  };
}
