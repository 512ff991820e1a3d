// `printroute invoices`: the seller printed on invoices and credit notes.
import type { Command } from 'commander'
import { dataCommand, note, print, printJson, runDataOperation, UsageError } from './command-support.ts'

export function registerInvoiceCommands(program: Command): void {
  const invoices = program.command('invoices').summary('the seller printed on invoices and credit notes')
  dataCommand(
    invoices,
    'invoices seller',
    {
      summary: 'show or set the seller on invoices',
      description:
        'Without options, shows the seller invoices are issued with. With --name (and the others), sets it for ' +
        'documents issued from now on; documents already issued keep the seller they were issued with. Until ' +
        'one is set, documents name "printroute" and this instance.',
      options: [
        ['--name <NAME>', 'the business name'],
        [
          '--address <LINE>',
          'an address line (repeat for each line, at most 6)',
          (line: string, lines: string[] = []) => [...lines, line],
        ],
        ['--tax-number <NUMBER>', 'VAT or other tax registration number'],
        ['--email <EMAIL>', 'a contact address for billing'],
        ['--json', 'print the seller as JSON'],
      ],
    },
    async (values, settingsOf) => {
      const settings = settingsOf()
      const show = (shown: { name: string; address: string[]; taxNumber: string | null; email: string | null }) =>
        values.json
          ? printJson(shown)
          : print(
              [
                `name:       ${shown.name}`,
                `address:    ${shown.address.join(', ') || '-'}`,
                `tax number: ${shown.taxNumber ?? '-'}`,
                `email:      ${shown.email ?? '-'}`,
              ].join('\n'),
            )
      if (values.name === undefined) {
        if (values.address !== undefined || values.taxNumber !== undefined || values.email !== undefined) {
          throw new UsageError('--name is required to set the seller')
        }
        const current = await runDataOperation(settings, 'showInvoiceSeller', undefined)
        if (!current.configured) note('no seller is set: documents name printroute and this instance')
        return show(current.seller)
      }
      // --address collects its repeats into a list (the option's third part), which Values does not say.
      const address: unknown = values.address
      const result = await runDataOperation(settings, 'setInvoiceSeller', {
        name: String(values.name),
        address: Array.isArray(address) ? address.map(String) : [],
        taxNumber: typeof values.taxNumber === 'string' ? values.taxNumber : null,
        email: typeof values.email === 'string' ? values.email : null,
      })
      if ('problems' in result) {
        throw new UsageError(
          Object.entries(result.problems)
            .map(([field, reason]) => `--${field === 'taxNumber' ? 'tax-number' : field}: ${reason}`)
            .join('; '),
        )
      }
      show(result.seller)
    },
  )
}
