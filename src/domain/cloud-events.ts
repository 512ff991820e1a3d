// The CloudEvents 1.0 envelope (JSON format) every event printroute sends starts with: an order's callbacks, a test
// callback, a webhook endpoint disabled, a job pushed to a lab. Built in one place so that their attributes stay in
// the same order, byte for byte, whatever the event carries after them.

/** The CloudEvent attributes every event starts with (before `data` and any extension). */
export interface CloudEventEnvelope {
  specversion: '1.0'
  type: string
  source: string
  id: string
  time: string
  datacontenttype: 'application/json'
}

/** The envelope's attributes in the order they are sent. */
export function cloudEventEnvelope(input: {
  id: string
  type: string
  source: string
  time: Date
}): CloudEventEnvelope {
  return {
    specversion: '1.0',
    type: input.type,
    source: input.source,
    id: input.id,
    time: input.time.toISOString(),
    datacontenttype: 'application/json',
  }
}
