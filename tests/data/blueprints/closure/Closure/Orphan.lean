-- No library's globs name this module and no module imports it: Lake never builds it.
namespace Closure

theorem orphan_fact : True := trivial

end Closure
