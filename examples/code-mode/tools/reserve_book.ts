import { BOOKS } from "./_library.ts";

// A write that destroys nothing, opted in to code: a script may reserve several books.
export default {
  title: "Reserve a book",
  description: "Reserves an available book for the caller; says so if it is out",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string", description: "The book's id, from find_books" } },
    required: ["id"],
  },
  annotations: { readOnlyHint: false, destructiveHint: false },
  code: true,
  handler({ id }: { id: string }) {
    const book = BOOKS.find((each) => each.id === id);
    if (book === undefined) throw new Error(`No book "${id}"`);
    const text = book.available ? `Reserved "${book.title}"` : `"${book.title}" is out`;
    return { content: [{ type: "text", text }] };
  },
};
