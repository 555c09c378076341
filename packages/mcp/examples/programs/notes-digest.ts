// A model-style program for `code-runtime run`: it reads meeting notes through the filesystem
// server ("notes"), stores the people and projects they mention in the memory server's
// knowledge graph ("memory"), queries the graph back and returns a digest. Body of an async
// function; `tools` and `ToolCallError` are globals of the run.

interface Note { file: string; title: string; people: string[]; projects: string[]; bullets: string[] }

const listing = await tools.notes_list_directory({ path: '.' })
const files = listing.content.split('\n')
  .filter((line) => line.startsWith('[FILE] ') && line.endsWith('.md'))
  .map((line) => line.slice('[FILE] '.length))
  .sort()

// Independent reads overlap: one round trip of the model, three calls in parallel.
const texts = await Promise.all(files.map((path) => tools.notes_read_text_file({ path })))
const listAfter = (text: string, label: string): string[] =>
  (text.split('\n').find((line) => line.startsWith(`${label}:`)) ?? '').slice(label.length + 1).split(',').map((name) => name.trim()).filter(Boolean)
const notes: Note[] = texts.map(({ content }, index) => ({
  file: files[index],
  title: (content.split('\n').find((line) => line.startsWith('# ')) ?? files[index]).slice(2),
  people: listAfter(content, 'People'),
  projects: listAfter(content, 'Projects'),
  bullets: content.split('\n').filter((line) => line.startsWith('- ')).map((line) => line.slice(2)),
}))
console.log(`read ${notes.length} notes: ${files.join(', ')}`)

const people = [...new Set(notes.flatMap((note) => note.people))].sort()
const projects = [...new Set(notes.flatMap((note) => note.projects))].sort()
await tools.memory_create_entities({
  entities: [
    ...people.map((name) => ({ name, entityType: 'person', observations: notes.filter((note) => note.people.includes(name)).map((note) => `attended ${note.title}`) })),
    ...projects.map((name) => ({ name, entityType: 'project', observations: notes.flatMap((note) => note.bullets.filter((bullet) => bullet.includes(name))) })),
  ],
})
// A person works on a project when one bullet names both.
const relations = notes.flatMap((note) => note.bullets.flatMap((bullet) =>
  people.filter((person) => bullet.includes(person)).flatMap((person) =>
    projects.filter((project) => bullet.includes(project)).map((project) => ({ from: person, to: project, relationType: 'works on' })))))
const unique = [...new Map(relations.map((relation) => [`${relation.from}→${relation.to}`, relation])).values()]
await tools.memory_create_relations({ relations: unique })
console.log(`stored ${people.length} people, ${projects.length} projects and ${unique.length} relations in the memory graph`)

// Query the graph back rather than trusting what was sent.
const graph = await tools.memory_read_graph()
const april = await tools.memory_search_nodes({ query: 'April' })
const lines = projects.map((project) => {
  const team = graph.relations.filter((relation) => relation.to === project).map((relation) => relation.from).sort()
  return `  ${project}: ${team.join(', ') || 'nobody yet'}`
})
const questions = notes.flatMap((note) => note.bullets.filter((bullet) => bullet.endsWith('?')).map((bullet) => `  ${bullet} (${note.title})`))
return [
  `Digest of ${notes.length} notes: ${graph.entities.length} entities and ${graph.relations.length} relations in the memory graph.`,
  'Who works on what:',
  ...lines,
  `Due in April: ${april.entities.map((entity) => entity.name).join(', ') || 'nothing'}`,
  'Open questions:',
  ...questions,
].join('\n')
