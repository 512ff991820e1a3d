// Response serializers, compiled once per schema object in a process. Both servers (Sandbox and Live) declare
// the same routes with the same schema objects, and so does every application a process builds (the tests build
// hundreds); compiling fast-json-stringify's code was the largest part of building a server. The serializer is
// Fastify's default one (fast-json-stringify through its compiler package, no shared schemas), only remembered.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifySerializerCompiler } from 'fastify'

type Serializer = (data: unknown) => string

const compileSerializer = SerializerSelector()({}, {}) as (route: { schema: object }) => Serializer
const serializers = new WeakMap<object, Serializer>()

export const serializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const schema = route.schema as object
  let serializer = serializers.get(schema)
  if (!serializer) {
    serializer = compileSerializer({ schema })
    serializers.set(schema, serializer)
  }
  return serializer
}
