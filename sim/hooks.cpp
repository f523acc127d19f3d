// The Hooks' members that need the block (hooks.h).
#include "sim/hooks.h"

#include "sim/state.h"

namespace tklab::sim {

void Hooks::allowed_uninit_read(const char* file, int line) {
    BlockTrace& t = *trace_;
    if (t.allowed_uninit_reads++ == 0) t.allowed_uninit_loc = block_->out->locs(file, line);
}

} // namespace tklab::sim
