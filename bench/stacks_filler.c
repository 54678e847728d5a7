/* One of the few hundred shared objects bench/stacks.sh loads beside the deep stack (a
 * PyTorch process has hundreds: its libraries, CUDA's, Python's extension modules): the
 * bench copies this object under many names and loads each copy, so that every lookup
 * of an address among the loaded objects has them to go through. Code and unwind tables
 * of its own, as any library has. */
int stacks_filler_value(int x);
int stacks_filler_value(int x) { return x * 3 + 1; }
