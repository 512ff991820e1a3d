/**
 * The statuses the orders list filters by (`GET /v4.0/orders?status=`, the dashboard's filter): what a merchant
 * asks for, not an order's stage (`awaitingPayment` is an in-progress order held for payment; v4 has no drafts).
 */
export const ORDER_LIST_STATUSES = ['draft', 'awaitingPayment', 'inProgress', 'complete', 'cancelled'] as const
export type OrderListStatus = (typeof ORDER_LIST_STATUSES)[number]
