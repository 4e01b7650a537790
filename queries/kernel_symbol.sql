-- A kernel symbol or task name without the prefixes TVM puts before a function's name
-- (`tvmgen_<module>_` since TVM 0.8, `vm_mod_` in the VM, `__tvm_`): the name a task and
-- the kernel compiled from it share. The one statement of this rule; hotdb's Python
-- (workload/families.py) is held to it by a test.
--
-- @param name  a kernel symbol or a task name
CREATE OR REPLACE MACRO kernel_symbol(name) AS regexp_replace(name, '^(tvmgen_[A-Za-z0-9]+_|vm_mod_|__tvm_)+', '');
