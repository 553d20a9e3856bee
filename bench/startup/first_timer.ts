// The first timer of a process.
clearTimeout(setTimeout(() => {}, 1000));
