// A prompt written as code: `get` returns the messages, here a user message and the start
// of the assistant's answer, which the model continues.
export default {
  title: "Commit message",
  description: "Writes a Git commit message for a change, from a summary of what changed",
  arguments: [
    {
      name: "summary",
      description: "What the change does and why, in a few words or a diff",
      required: true,
    },
  ],
  get: ({ summary }: { summary: string }) => [
    {
      role: "user",
      content: "Write a commit message for this change. Use a subject line of at most 72 " +
        "characters in the imperative mood, a blank line, then a short body saying why the " +
        `change was made.\n\n${summary}`,
    },
    { role: "assistant", content: "Here is a commit message for that change:\n\n" },
  ],
};
