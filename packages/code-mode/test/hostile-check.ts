// A program whose type check is one statement that keeps TypeScript busy for tens of seconds and
// grows its heap to gigabytes (measured before checks left the host's thread: the event loop blocked
// 37-55 s with a 3.6 GB heap peak, and the check then accepted it).
const TERMS: string[] = []
for (let n = 99; n >= 60; n--) TERMS.push(`M<B<${n}>, B<99>>["length"]`)

export const HOSTILE_CHECK_PROGRAM = `type B<N extends number, A extends any[] = []> = A["length"] extends N ? A : B<N, [...A, 1]>
type M<A extends any[], C extends any[], Acc extends any[] = []> = C extends [any, ...infer Rest] ? M<A, Rest, [...Acc, ...A]> : Acc
const z: ${TERMS.join(' | ')} = 0 as any
return 'ran'`
