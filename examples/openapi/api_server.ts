// deno-lint-ignore-file no-console -- a program of its own: it says where it listens
// The pet store that tools/petstore.openapi.yaml describes, in memory on 127.0.0.1: a stand-in
// for a real service, so that the example runs on one machine. Anyone may read; adding, changing
// and removing a pet take the key in `X-API-Key`, which is $PETSTORE_API_KEY. It prints where it
// listens, then serves until stopped.
//
//   PETSTORE_API_KEY=… deno run -A examples/openapi/api_server.ts [--port N]   (default 8090)

interface Pet {
  id: number;
  name: string;
  tag?: string;
}

const key = Deno.env.get("PETSTORE_API_KEY");
if (key === undefined || key === "") {
  console.error("Set PETSTORE_API_KEY to the key the store expects in X-API-Key");
  Deno.exit(2);
}
const portFlag = Deno.args.indexOf("--port");
const port = portFlag === -1 ? 8090 : Number(Deno.args[portFlag + 1]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`Cannot listen on port "${Deno.args[portFlag + 1]}": give --port 0 to 65535`);
  Deno.exit(2);
}

const pets: Pet[] = [{ id: 1, name: "Rex", tag: "dog" }, { id: 2, name: "Tom", tag: "cat" }];
let nextId = 3;

function answer(status: number, body?: unknown): Response {
  return body === undefined ? new Response(null, { status }) : Response.json(body, { status });
}

/** A new pet's fields from a request body, or the message saying what is wrong with it. */
async function newPet(request: Request): Promise<Omit<Pet, "id"> | string> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return "The body is not JSON";
  }
  if (typeof body !== "object" || body === null) return "The body is not an object";
  const { name, tag } = body as Record<string, unknown>;
  if (typeof name !== "string" || name === "" || name.length > 100) {
    return "A pet needs a name of 1 to 100 characters";
  }
  if (tag !== undefined && typeof tag !== "string") return "A tag is a string";
  return tag === undefined ? { name } : { name, tag };
}

function listPets(url: URL): Response {
  // The document says `style: form, explode: false`: one parameter, tags joined by commas.
  const tags = url.searchParams.get("tags")?.split(",");
  const limit = Number(url.searchParams.get("limit") ?? "20");
  const found = pets.filter((pet) => tags === undefined || tags.includes(pet.tag ?? ""));
  return answer(200, found.slice(0, limit));
}

async function handle(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const writes = request.method !== "GET" && request.method !== "HEAD";
  if (writes && request.headers.get("x-api-key") !== key) {
    return answer(401, { message: "The API key is missing or wrong" });
  }
  if (url.pathname === "/v1/pets") {
    if (request.method === "GET") return listPets(url);
    if (request.method === "POST") {
      const fields = await newPet(request);
      if (typeof fields === "string") return answer(400, { message: fields });
      const pet = { id: nextId++, ...fields };
      pets.push(pet);
      return answer(201, pet);
    }
    return answer(405, { message: `${request.method} is not allowed on /v1/pets` });
  }
  if (url.pathname === "/v1/stats" && request.method === "GET") {
    const counts: Record<string, number> = {};
    for (const pet of pets) if (pet.tag !== undefined) counts[pet.tag] = (counts[pet.tag] ?? 0) + 1;
    return answer(200, counts);
  }
  const match = /^\/v1\/pets\/(\d+)$/.exec(url.pathname);
  const index = match === null ? -1 : pets.findIndex((pet) => pet.id === Number(match[1]));
  if (index === -1) return answer(404, { message: `Nothing at ${url.pathname}` });
  if (request.method === "GET") return answer(200, pets[index]);
  if (request.method === "PUT") {
    const fields = await newPet(request);
    if (typeof fields === "string") return answer(400, { message: fields });
    pets[index] = { id: pets[index].id, ...fields };
    return answer(200, pets[index]);
  }
  if (request.method === "DELETE") {
    pets.splice(index, 1);
    return answer(204);
  }
  return answer(405, { message: `${request.method} is not allowed on ${url.pathname}` });
}

Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: (address) =>
    console.log(`The pet store listens on http://127.0.0.1:${address.port}/v1`),
}, handle);
