#pragma once
// Every corank::strategy, for tests that must give identical results under each. Plain C++.

#include <corank/strategy.hpp>

#include <vector>

namespace corank::test {

inline std::vector<corank::strategy> every_strategy() {
  return {corank::strategy::automatic, corank::strategy::naive, corank::strategy::tiled,
          corank::strategy::circular, corank::strategy::partitioned};
}

}  // namespace corank::test
