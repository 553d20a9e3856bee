// The library the example's tools read: a few books, as a real server would have a database.
// Not a tool (its name starts with "_").

export interface Book {
  id: string;
  title: string;
  author: string;
  year: number;
  available: boolean;
}

export const BOOKS: readonly Book[] = [
  {
    id: "b1",
    title: "The Left Hand of Darkness",
    author: "Ursula K. Le Guin",
    year: 1969,
    available: true,
  },
  {
    id: "b2",
    title: "The Dispossessed",
    author: "Ursula K. Le Guin",
    year: 1974,
    available: false,
  },
  { id: "b3", title: "Kindred", author: "Octavia E. Butler", year: 1979, available: true },
  {
    id: "b4",
    title: "Parable of the Sower",
    author: "Octavia E. Butler",
    year: 1993,
    available: true,
  },
  { id: "b5", title: "Solaris", author: "Stanisław Lem", year: 1961, available: false },
];
