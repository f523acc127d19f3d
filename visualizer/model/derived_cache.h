// What a panel works out from a trace once and keeps across frames (a block's
// barrier episodes, a launch's per-line costs, one instruction's banks, the
// panel's own state for a document): one value, made again whenever the
// trace or the other inputs differ from the last call's.
//
// The trace is recognised by its ownership (the shared_ptr's control block),
// never by its address: the cache holds a weak_ptr, so the control block
// stays allocated while the cache remembers it and no other trace can ever
// match it, not even one loaded at the address a closed trace had. Being
// weak, it does not keep a closed trace alive either.
#pragma once
#include <memory>
#include <optional>
#include <tuple>
#include "trace/trace.h"

namespace tklab::view {

template <class Value, class... Inputs>
class DerivedCache {
public:
    // The kept value when `source` and `inputs` are the last call's; else
    // make()'s, which is kept instead. A null source is a source like any other
    // (a document that could not be read).
    template <class Make>
    Value& get(const std::shared_ptr<const trace::Trace>& source, const Inputs&... inputs, Make&& make) {
        if (!value_ || !same_owner(source) || key_ != std::tuple<Inputs...>(inputs...)) {
            value_.reset();  // the old value's memory goes before the new one is made
            value_.emplace(make());
            source_ = source;
            key_ = std::tuple<Inputs...>(inputs...);
        }
        return *value_;
    }

private:
    bool same_owner(const std::shared_ptr<const trace::Trace>& s) const {
        return !source_.owner_before(s) && !s.owner_before(source_);
    }

    std::weak_ptr<const trace::Trace> source_;
    std::tuple<Inputs...> key_{};
    std::optional<Value> value_;
};

} // namespace tklab::view
