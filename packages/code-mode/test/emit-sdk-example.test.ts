// The README's emitter example, run as users would run it: the compiled file, in its own process.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { packageFileUrl } from './corpus.js'

describe('examples/emit-sdk', () => {
  it('prints the SDK and the member of each tool', () => {
    const example = fileURLToPath(new URL('../examples/emit-sdk.js', import.meta.url))
    const output = execFileSync(process.execPath, [example], { encoding: 'utf8' })
    assert.ok(output.includes('  /** Current weather for a city. @tool get-weather @readOnly */\n'), output)
    assert.ok(
      output.includes(
        'get_weather(args: { /** City name, e.g. Berlin */ city: string }): Promise<{ celsius: number; sky: "clear" | "cloudy" | "rain" }>',
      ),
      output,
    )
    assert.ok(output.includes('get-weather is called as tools.get_weather'), output)
  })

  it('is shown in the README exactly as it is in examples/', () => {
    const readme = readFileSync(packageFileUrl('README.md'), 'utf8')
    const example = readFileSync(packageFileUrl('examples/emit-sdk.ts'), 'utf8')
    assert.ok(readme.includes(`\`\`\`ts\n${example}\`\`\``), 'README example differs from examples/emit-sdk.ts')
  })
})
