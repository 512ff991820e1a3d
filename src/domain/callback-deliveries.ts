// A callback delivery's state (docs/callbacks.md): waiting for an attempt, answered with a 2xx, or out of attempts.
// Defined here rather than beside its SQL so the routes' query schema and the dashboard share one list.
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]
