function f() {
  return 2;
}

console.log(f());
