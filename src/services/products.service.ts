// Product details straight from the loaded catalogue (no database).
import type { Catalogue } from '../catalogue/catalogue.ts'
import { ServiceError } from '../domain/outcomes.ts'

export function createProductsService(deps: { catalogue: Catalogue }) {
  const { catalogue } = deps
  return {
    getProduct(sku: string) {
      const details = catalogue.productDetails(sku)
      if (!details) throw new ServiceError('EntityNotFound', `There is no product with SKU ${sku}`)
      return details
    },
  }
}

export type ProductsService = ReturnType<typeof createProductsService>
