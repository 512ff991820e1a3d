// Placeholder until the page lands (issue 12).
import type { FastifyInstance } from 'fastify'
import type { Dashboard } from '../dashboard.plugin.ts'

export function registerNewOrderPages(_pages: FastifyInstance, _dashboard: Dashboard): void {}
