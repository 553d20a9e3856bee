// The floor: Deno starting and running an empty module.
