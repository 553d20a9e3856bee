import { BOOKS } from "./_library.ts";

// A read: code in code mode may call it without asking anyone.
export default {
  title: "Find books",
  description: "Finds books in the library by author or by words of the title",
  inputSchema: {
    type: "object",
    properties: {
      author: { type: "string", description: "Part of the author's name" },
      title: { type: "string", description: "Words of the title" },
    },
  },
  outputSchema: {
    type: "object",
    properties: {
      books: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            title: { type: "string" },
            author: { type: "string" },
            year: { type: "integer" },
            available: { type: "boolean" },
          },
          required: ["id", "title", "author", "year", "available"],
        },
      },
    },
    required: ["books"],
  },
  annotations: { readOnlyHint: true },
  handler({ author = "", title = "" }: { author?: string; title?: string }) {
    const books = BOOKS.filter((book) =>
      book.author.toLowerCase().includes(author.toLowerCase()) &&
      book.title.toLowerCase().includes(title.toLowerCase())
    );
    return {
      content: [{ type: "text", text: books.map((book) => book.title).join("\n") }],
      structuredContent: { books },
    };
  },
};
