// Facts about the simulated GPU that host code asks for (tk::multiprocessors).
#include "sim/api.h"
#include "sim/cost_model.h"
#include "sim/simulator.h"

namespace tklab::sim {

int multiprocessors() { return CostModel::load(options().arch).sms; }

} // namespace tklab::sim
