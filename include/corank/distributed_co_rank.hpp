#pragma once
// The distributed co-rank: the splits of the path of two sorted inputs that are each held as
// ordered partitions in different places (GPUs, hosts), found by reading a few elements at a
// time. Partition q of A holds A[start_q, start_q + size_q), no key of it after any of
// partition q + 1's; likewise B. The search knows every partition's size and first and last
// key, and reads the rest in rounds of requests that the caller answers (an exchange: an
// all-gather between GPUs in distributed_operation.cuh, plain array reads in the tests):
//
//   corank::distributed_co_rank<corank::partitioning::merge_path, Key> search(diagonals, a, b);
//   while (!search.done()) search.answer(exchange(search.requests()));
//   for (corank::split<corank::index_t> s : search.splits()) ...
//
// Each diagonal's split is exactly path_split's (balanced_path.hpp) on the concatenated
// inputs: co_rank's on the merge path, balanced_co_rank's on the balanced path. How:
// 1. Narrowing, reading nothing: the co-rank of k is the first p with B[k-1-p] < A[p]. At a
//    partition's first or last position p of A, A[p] is known, and B[k-1-p] lies between the
//    first and last key of its partition, which often decides the comparison; likewise at B's.
//    Along the known positions "known true" and "known false" each change once, so binary
//    searches over them bound each cut to the one or two partitions it falls in.
// 2. Rounds: a cut whose range [lo, hi] holds more than s positions reads s evenly spaced
//    probes (A[p] and B[k-1-p]), which narrow it (s + 1)-fold; one of at most s positions
//    reads all of them (and, on the balanced path, the elements next to them), which settles
//    it. s is max(256, 2^12 / cuts) unless given: a range of 2^30 cut once settles in three
//    rounds. A round costs a round trip between the ranks and, on the host, a few ns per
//    element read: fewer, larger rounds cost more than they save.
// 3. Balanced path: balanced_split_from's run searches become the next key's lower bounds in
//    A and in B and its upper bound in B, sums over partitions (ties go to A, so A's upper
//    bound is never needed). Every partition counts whole or not at all
//    from its boundary keys but, per bound, the one that holds the run's end, which one round
//    of counts answers (the elements of that partition before the key, or not after it). A cut
//    whose split cuts no run (the settled elements show it) needs no counts.
// Requests never repeat a position, and leave out those whose keys the partitions' bounds
// give. Cost: the sort of each round's requests on the caller's thread (cuts × s positions).
// Preconditions (not checked here; distributed_operation.cuh checks the order across
// partitions): each input sorted by `comp` across its partitions in order; 0 <= k <= m + n
// for every diagonal. Unsorted inputs (or a comparator that is not a strict weak order) give
// meaningless splits, but every search ends, within ceil(log(range) / log(s + 1)) + 2 rounds,
// requests only positions inside the inputs, and every split lies inside them (0 <= a <= m,
// 0 <= b <= n, a + b within one of its diagonal); splits of consecutive diagonals may go
// backwards, which distributed_operation.cuh reports (plan_in_order). Plain C++; `comp` runs
// on the host.

#include <corank/balanced_path.hpp>
#include <corank/comparators.hpp>
#include <corank/config.hpp>
#include <corank/op.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace corank {

// One input as the search first sees it: every partition's size and, where it is not empty,
// its first and last key, in partition order (first and last: one entry per partition; those
// of empty partitions are ignored).
template <class Key>
struct partition_table {
  std::vector<index_t> sizes;
  std::vector<Key> first, last;
};

// A count a round asks of one partition: its elements before `key` (right == false, the
// lower bound) or not after it (right == true, the upper bound).
template <class Key>
struct distributed_count {
  int partition;
  Key key;
  bool right;
};

// What a round reads: the elements at global positions of A and of B (sorted, distinct), and
// counts of partitions of A and of B.
template <class Key>
struct distributed_requests {
  std::vector<index_t> a_positions, b_positions;
  std::vector<distributed_count<Key>> a_counts, b_counts;
};

// The answers, in the requests' order: the elements, and each count within its partition.
template <class Key>
struct distributed_answers {
  std::vector<Key> a_values, b_values;
  std::vector<index_t> a_counts, b_counts;
};

namespace detail {

// t * r / d, rounded down, without overflow, for r >= 0 and 0 <= t <= d < 2^31.
inline index_t scaled(index_t r, index_t t, index_t d) { return r / d * t + r % d * t / d; }

// The first index in [low, high) where `holds` (false, then true along the range) is true,
// else high.
template <class Index, class Predicate>
Index first_true(Index low, Index high, Predicate holds) {
  while (low < high) {
    const Index mid = low + (high - low) / 2;
    if (holds(mid)) high = mid; else low = mid + 1;
  }
  return low;
}

// One input as the search uses it: where each partition starts, and the nonempty ones'
// bounds and boundary keys.
template <class Key>
struct distributed_side {
  index_t size = 0;
  std::vector<int> partition;       // the nonempty partitions, in order
  std::vector<index_t> begin;       // their global starts
  std::vector<Key> first, last;     // their first and last keys
  std::vector<index_t> known;       // positions whose keys the table gives, in order
  std::vector<Key> known_keys;

  explicit distributed_side(const partition_table<Key>& table) {
    for (std::size_t q = 0; q < table.sizes.size(); ++q) {
      const index_t s = table.sizes[q];
      if (s > 0) {
        partition.push_back(int(q));
        begin.push_back(size);
        first.push_back(table.first[q]);
        last.push_back(table.last[q]);
        known.insert(known.end(), {size, size + s - 1});
        known_keys.insert(known_keys.end(), {table.first[q], table.last[q]});
      }
      size += s;
    }
  }
  std::size_t nonempty() const { return partition.size(); }
  // The nonempty partition (an index into begin) that holds position p, 0 <= p < size.
  std::size_t holding(index_t p) const {
    return std::size_t(std::upper_bound(begin.begin(), begin.end(), p) - begin.begin()) - 1;
  }
  // The key at p where the table gives it, else nullptr.
  const Key* known_at(index_t p) const {
    const auto at = std::lower_bound(known.begin(), known.end(), p);
    return at != known.end() && *at == p ? &known_keys[std::size_t(at - known.begin())] : nullptr;
  }
};

}  // namespace detail

template <partitioning Partition, class Key, class Compare = corank::less>
class distributed_co_rank {
 public:
  // Elements read per side and round, shared by the cuts (each reads at least min_samples).
  static constexpr index_t default_budget = index_t(1) << 12;
  static constexpr index_t min_samples = 256;
  static constexpr index_t max_samples = index_t(1) << 30;  // larger `samples` are taken as this

  // The search for the splits of `diagonals` over partitions a and b; samples: the probes per
  // cut and side in a round (0: max(min_samples, default_budget / cuts)); brackets, if given:
  // for each diagonal, a range [first, second] known to hold its merge path co-rank (from the
  // merge path's splits of diagonals around it). Narrows with the tables and prepares the
  // first round's requests.
  distributed_co_rank(const std::vector<index_t>& diagonals, const partition_table<Key>& a,
                      const partition_table<Key>& b, Compare comp = {}, index_t samples = 0,
                      const std::vector<std::pair<index_t, index_t>>* brackets = nullptr)
      : a_(a), b_(b), comp_(comp) {
    const index_t m = a_.size, n = b_.size;
    for (std::size_t x = 0; x < diagonals.size(); ++x) {
      const index_t k = diagonals[x];
      cut c{k, k > n ? k - n : 0, k < m ? k : m};
      if (brackets != nullptr && x < brackets->size()) {
        const auto [low, high] = (*brackets)[x];
        if (std::max(c.lo, low) <= std::min(c.hi, high)) {  // else (unsorted input) the whole range
          c.lo = std::max(c.lo, low);
          c.hi = std::min(c.hi, high);
        }
      }
      if (k == 0 || k == m + n) {
        finish(c, {c.lo, k - c.lo});  // the ends: (0, 0) and (m, n) on either path
      } else {
        narrow(c);
        ++pending_;
      }
      cuts_.push_back(c);
    }
    samples_ = samples > 0 ? std::min(samples, max_samples)
                           : std::max<index_t>(min_samples, default_budget / std::max<index_t>(1, pending_));
    plan_round();
  }

  bool done() const { return pending_ == 0; }
  // The next round's reads; not empty unless done().
  const distributed_requests<Key>& requests() const { return requests_; }
  // Takes the answers to requests() and prepares the next round.
  void answer(const distributed_answers<Key>& answers) {
    ++rounds_;
    resolve(&answers);
    plan_round();
  }
  // Every diagonal's split, in the diagonals' order, once done().
  std::vector<split<index_t>> splits() const {
    std::vector<split<index_t>> out;
    for (const cut& c : cuts_) out.push_back(c.result);
    return out;
  }
  int rounds() const { return rounds_; }       // answers taken so far
  index_t samples() const { return samples_; }  // probes per cut and side in a round

 private:
  static constexpr bool balanced = Partition == partitioning::balanced_path;
  enum class phase : unsigned char { search, settle, count, done };
  // The balanced path's bounds of the key: its lower bound in A, its lower and upper bounds in
  // B (A's upper bound is never needed: see start_balanced).
  struct bound {
    index_t value = 0;  // the bound, or where the counted partition starts
    int partition = -1;  // the partition a count is asked of, or -1
    std::size_t query = 0;  // the count's index in its side's requests
  };
  struct cut {
    index_t k, lo, hi;  // the merge path's co-rank lies in [lo, hi]
    phase step = phase::search;
    index_t i = 0;  // the co-rank, once settled (balanced path)
    Key key{};      // the key of the run the split may cut (balanced path)
    bool from_a = false;  // the element after the merge path's split is A's (balanced path)
    bound bounds[3]{};
    split<index_t> result{0, 0};
  };

  Key a_at(index_t p) const { return value_at(a_, requests_.a_positions, p, true); }
  Key b_at(index_t p) const { return value_at(b_, requests_.b_positions, p, false); }
  Key value_at(const detail::distributed_side<Key>& side, const std::vector<index_t>& asked, index_t p,
               bool a) const {
    if (const Key* known = side.known_at(p)) return *known;
    const std::size_t at = std::size_t(std::lower_bound(asked.begin(), asked.end(), p) - asked.begin());
    return a ? answers_->a_values[at] : answers_->b_values[at];
  }

  void finish(cut& c, split<index_t> s) {
    c.result = s;
    c.step = phase::done;
  }

  // Bounds [lo, hi] with the partitions' boundary keys alone (step 1 above).
  void narrow(cut& c) const {
    const auto& a = a_;
    const auto& b = b_;
    if (a.nonempty() == 0 || b.nonempty() == 0) return;
    const index_t k = c.k;
    const auto clamp = [](index_t p, index_t size) { return std::min(std::max<index_t>(p, 0), size - 1); };
    // A's known positions p in [lo, hi): true for sure where B's partition at k-1-p ends before
    // A[p], false for sure where it starts at or after A[p].
    std::size_t begin = std::size_t(std::lower_bound(a.known.begin(), a.known.end(), c.lo) - a.known.begin());
    std::size_t end = std::size_t(std::lower_bound(a.known.begin(), a.known.end(), c.hi) - a.known.begin());
    const auto b_part = [&](std::size_t x) { return b.holding(clamp(k - 1 - a.known[x], b.size)); };
    const std::size_t known_true =
        detail::first_true(begin, end, [&](std::size_t x) { return comp_(b.last[b_part(x)], a.known_keys[x]); });
    if (known_true < end) c.hi = std::min(c.hi, a.known[known_true]);
    const std::size_t open =  // the first not known false
        detail::first_true(begin, end, [&](std::size_t x) { return comp_(b.first[b_part(x)], a.known_keys[x]); });
    if (open > begin) c.lo = std::max(c.lo, a.known[open - 1] + 1);
    // B's known positions q, p = k-1-q in [lo, hi): along q, known true (B[q] before A's
    // partition at p) holds first, known false (B[q] not before its last key) last.
    begin = std::size_t(std::lower_bound(b.known.begin(), b.known.end(), k - c.hi) - b.known.begin());
    end = std::size_t(std::lower_bound(b.known.begin(), b.known.end(), k - c.lo) - b.known.begin());
    const auto a_part = [&](std::size_t x) { return a.holding(clamp(k - 1 - b.known[x], a.size)); };
    const std::size_t not_true =
        detail::first_true(begin, end, [&](std::size_t x) { return !comp_(b.known_keys[x], a.first[a_part(x)]); });
    if (not_true > begin) c.hi = std::min(c.hi, k - 1 - b.known[not_true - 1]);
    const std::size_t known_false =
        detail::first_true(begin, end, [&](std::size_t x) { return !comp_(b.known_keys[x], a.last[a_part(x)]); });
    if (known_false < end) c.lo = std::max(c.lo, k - b.known[known_false]);
    c.hi = std::max(c.hi, c.lo);  // unsorted input: stay a range
  }

  // The probes of a wide range: lo + t (hi - lo) / (s + 1) for t = 1 .. s, all inside (lo, hi).
  index_t probe(const cut& c, index_t t) const { return c.lo + detail::scaled(c.hi - c.lo, t, samples_ + 1); }

  // What a settling cut reads: A[lo, hi) and B[k - hi, k - lo), and on the balanced path one
  // more on each side of each (the elements next to the split), within the inputs.
  void grid(const cut& c, index_t& a_begin, index_t& a_end, index_t& b_begin, index_t& b_end) const {
    const index_t extra = balanced ? 1 : 0;
    a_begin = std::max<index_t>(0, c.lo - extra);
    a_end = std::min(a_.size, c.hi + extra);
    b_begin = std::max<index_t>(0, c.k - c.hi - extra);
    b_end = std::min(b_.size, c.k - c.lo + extra);
  }

  void want(std::vector<index_t>& asked, const detail::distributed_side<Key>& side, index_t p) const {
    if (side.known_at(p) == nullptr) asked.push_back(p);
  }

  // The next round's requests; where a round would read only what the tables give, it is
  // resolved at once, so requests() is empty only when the search is done.
  void plan_round() {
    for (;;) {
      requests_ = {};
      for (cut& c : cuts_) {
        if (c.step == phase::search) {
          if (!balanced && c.lo == c.hi) {
            finish(c, {c.lo, c.k - c.lo});
            --pending_;
            continue;
          }
          if (c.hi - c.lo <= samples_) c.step = phase::settle;
        }
        if (c.step == phase::search) {
          for (index_t t = 1; t <= samples_; ++t) want(requests_.a_positions, a_, probe(c, t));
          for (index_t t = samples_; t >= 1; --t) want(requests_.b_positions, b_, c.k - 1 - probe(c, t));
        } else if (c.step == phase::settle) {
          index_t a_begin, a_end, b_begin, b_end;
          grid(c, a_begin, a_end, b_begin, b_end);
          for (index_t p = a_begin; p < a_end; ++p) want(requests_.a_positions, a_, p);
          for (index_t q = b_begin; q < b_end; ++q) want(requests_.b_positions, b_, q);
        } else if (c.step == phase::count) {
          for (int which = 0; which < 3; ++which) {
            bound& x = c.bounds[which];
            if (x.partition < 0) continue;
            auto& asked = which == 0 ? requests_.a_counts : requests_.b_counts;
            x.query = asked.size();
            asked.push_back({x.partition, c.key, which == 2});
          }
        }
      }
      for (auto* asked : {&requests_.a_positions, &requests_.b_positions}) {
        if (!std::is_sorted(asked->begin(), asked->end())) std::sort(asked->begin(), asked->end());
        asked->erase(std::unique(asked->begin(), asked->end()), asked->end());
      }
      const bool empty = requests_.a_positions.empty() && requests_.b_positions.empty() &&
                         requests_.a_counts.empty() && requests_.b_counts.empty();
      if (!empty || pending_ == 0) return;
      resolve(nullptr);  // every read is a boundary key
    }
  }

  // Applies a round's answers (null: a round that reads only boundary keys) to every cut.
  void resolve(const distributed_answers<Key>* answers) {
    answers_ = answers;
    for (cut& c : cuts_) {
      // B[k-1-p] < A[p] is false, then true, along p: the split is where it turns, found by
      // a binary search over what the round read (O(log s) of its s probes per cut).
      const auto after = [&](index_t p) { return comp_(b_at(c.k - 1 - p), a_at(p)); };
      if (c.step == phase::search) {
        const index_t t = detail::first_true<index_t>(1, samples_ + 1, [&](index_t u) { return after(probe(c, u)); });
        const index_t lo = t > 1 ? probe(c, t - 1) + 1 : c.lo, hi = t <= samples_ ? probe(c, t) : c.hi;
        c.lo = lo;
        c.hi = std::max(hi, lo);
      } else if (c.step == phase::settle) {
        const index_t i = detail::first_true(c.lo, c.hi, after);
        if (balanced) start_balanced(c, i); else finish(c, {i, c.k - i});
      } else if (c.step == phase::count) {
        for (int which = 0; which < 3; ++which) {
          bound& x = c.bounds[which];
          if (x.partition < 0) continue;
          x.value += which == 0 ? answers_->a_counts[x.query] : answers_->b_counts[x.query];
          x.partition = -1;
        }
        finish_balanced(c);
      } else {
        continue;
      }
      if (c.step == phase::done) --pending_;
    }
    answers_ = nullptr;
  }

  // A bound of `key` in one input from the boundary keys, or the count that completes it: the
  // partitions entirely before key (last < key; for the upper bound last <= key) are a prefix
  // and count whole; the next one needs a count only if some of it is before key (not after
  // it); the rest count nothing.
  bound decide(const detail::distributed_side<Key>& side, const Key& key, bool right) const {
    const std::size_t whole = detail::first_true<std::size_t>(0, side.nonempty(), [&](std::size_t q) {
      return right ? comp_(key, side.last[q]) : !comp_(side.last[q], key);
    });
    if (whole == side.nonempty()) return {side.size};
    const bool part = right ? !comp_(key, side.first[whole]) : comp_(side.first[whole], key);
    return {side.begin[whole], part ? side.partition[whole] : -1};
  }

  // From the merge path's split (i, k - i) to the balanced path's (balanced_split_from): done
  // here if the split cuts no run of the next key, else the key's bounds, from the settled
  // elements, the tables, or counts in the next round.
  void start_balanced(cut& c, index_t i) {
    const index_t m = a_.size, n = b_.size, j = c.k - i;
    if (i == m && j == n) return finish(c, {i, j});
    const bool from_a = i < m && (j >= n || !comp_(b_at(j), a_at(i)));
    const Key key = from_a ? a_at(i) : b_at(j);
    const bool a_in_run = i > 0 && !comp_(a_at(i - 1), key);  // A[i-1] is a copy of key
    const bool b_in_run = j > 0 && !comp_(b_at(j - 1), key);
    if (!a_in_run && !b_in_run) return finish(c, {i, j});
    c.i = i;
    c.key = key;
    c.from_a = from_a;
    // A bound that the settled elements show: the lower bound is the split where the element
    // before it is not a copy, the upper bound where the element after it is none.
    c.bounds[0] = a_in_run ? decide(a_, key, false) : bound{i};
    c.bounds[1] = b_in_run ? decide(b_, key, false) : bound{j};
    c.bounds[2] = j == n || comp_(key, b_at(j)) ? bound{j} : decide(b_, key, true);
    c.step = phase::count;
    for (const bound& x : c.bounds) {
      if (x.partition >= 0) return;  // counts in the next round
    }
    finish_balanced(c);
  }

  // balanced_split_from's arithmetic on the key's bounds.
  void finish_balanced(cut& c) {
    const index_t i = c.i, j = c.k - i;
    const index_t a_run = std::min(i, c.bounds[0].value), b_run = std::min(j, c.bounds[1].value);
    const index_t before = (i - a_run) + (j - b_run);
    if (before <= 0) return finish(c, {i, j});  // only for unsorted input
    // A's copies all precede the split (next is B's) or at least `before` do (next is A's: the
    // merge path puts A's copies of a key first, so no B copy precedes the split), as in
    // balanced_split_from, which never counts A's upper bound either.
    const index_t a_copies = c.from_a ? std::min(before, a_.size - a_run) : i - a_run;  // within A: unsorted input
    const index_t b_copies = std::min(std::max<index_t>(c.bounds[2].value - b_run, 0), before);
    finish(c, detail::split_in_run(a_run, b_run, before, a_copies, b_copies));
  }

  detail::distributed_side<Key> a_, b_;
  Compare comp_;
  std::vector<cut> cuts_;
  index_t samples_ = 0;
  index_t pending_ = 0;  // cuts not done
  int rounds_ = 0;
  distributed_requests<Key> requests_;
  const distributed_answers<Key>* answers_ = nullptr;
};

// Where a distributed operation's output is computed (distributed_options::placement).
enum class distributed_placement : unsigned char {
  // Rank r computes the path's diagonals [r N / P, (r + 1) N / P): equal shares for the merge,
  // each rank's output one contiguous range of the result, in rank order; data moves to them.
  balanced,
  // The path is cut where it starts and ends each rank's partition of A and of B (between two
  // such cuts it reads one partition of A and one of B at most), and each piece is computed by the
  // rank holding more of its elements: a piece moves its smaller side at most (disjoint inputs
  // nothing; inputs interleaved near the cuts may move less under the balanced cut), the
  // shares follow the data, and a rank may hold several pieces of the result.
  owner,
};

// One piece of a distributed operation's result, in the result's order: `size` elements at
// `offset` of rank `rank`'s output.
struct distributed_piece {
  int rank = 0;
  index_t offset = 0, size = 0;
};

// Every rank's share of a distributed operation, the same on every rank: the partitions'
// sizes and the path cut into pieces, each computed by one rank (its owner). Piece p reads
// A[splits[p].a, splits[p + 1].a) and B[splits[p].b, splits[p + 1].b), the path's splits at
// diagonals[p] and diagonals[p + 1]; a rank's output is its pieces' outputs in path order.
// Pieces whose elements move are cut further into parts, each moving in one of the stages
// (distributed_options::stages, round robin along the piece): stage s's moves are exchanged
// together (in rounds, detail/forms/exchange_rounds.hpp), and a part's op runs once its stage
// has arrived.
struct distributed_plan {
  partitioning partition = partitioning::merge_path;
  distributed_placement placement = distributed_placement::balanced;
  int rank = 0;                           // the rank this plan was made on
  std::vector<index_t> a_sizes, b_sizes;  // every rank's partition of A and of B
  std::vector<index_t> diagonals;         // pieces() + 1, from 0 to m + n, not decreasing
  std::vector<split<index_t>> splits;     // the path's splits there, from (0, 0) to (m, n)
  std::vector<int> owners;                // pieces(): the rank computing each piece
  std::vector<int> stages;                // pieces(): the stage its elements move in
  int rounds = 0;                         // the search's exchanges after the first (sizes and boundary keys)

  int ranks() const { return int(a_sizes.size()); }
  int pieces() const { return int(owners.size()); }
  int stage_count() const {
    int most = 0;
    for (const int s : stages) most = s + 1 > most ? s + 1 : most;
    return most > 0 ? most : 1;
  }
  index_t piece_a(int p) const { return splits[std::size_t(p) + 1].a - splits[std::size_t(p)].a; }
  index_t piece_b(int p) const { return splits[std::size_t(p) + 1].b - splits[std::size_t(p)].b; }
  // Rank q's windows' sizes: the elements of A and of B its pieces read.
  index_t window_a(int q) const { return sum_over(q, true); }
  index_t window_b(int q) const { return sum_over(q, false); }
  // The elements this rank's output may need: its windows' sizes (the merge: exactly).
  index_t output_bound() const { return window_a(rank) + window_b(rank); }
  // The result's pieces in order, each rank's consecutive pieces joined, with the sizes of
  // the merge (pieces' input sizes; a set operation's run fills distributed_options::order).
  std::vector<distributed_piece> merge_order() const {
    std::vector<distributed_piece> order;
    std::vector<index_t> at(a_sizes.size(), 0);
    for (int p = 0; p < pieces(); ++p) {
      const int q = owners[std::size_t(p)];
      const index_t size = piece_a(p) + piece_b(p);
      if (size == 0) continue;
      if (!order.empty() && order.back().rank == q) {
        order.back().size += size;
      } else {
        order.push_back({q, at[std::size_t(q)], size});
      }
      at[std::size_t(q)] += size;
    }
    return order;
  }

 private:
  index_t sum_over(int q, bool of_a) const {
    index_t sum = 0;
    for (int p = 0; p < pieces(); ++p) {
      if (owners[std::size_t(p)] == q) sum += of_a ? piece_a(p) : piece_b(p);
    }
    return sum;
  }
};

// The search run to the end, `exchange(requests)` returning each round's answers. Returns
// the splits of `diagonals`, in order; `rounds`, if given, gets the rounds it took; brackets
// as distributed_co_rank's.
template <partitioning Partition, class Key, class Exchange, class Compare = corank::less>
std::vector<split<index_t>> distributed_path_splits(const std::vector<index_t>& diagonals,
                                                    const partition_table<Key>& a, const partition_table<Key>& b,
                                                    Exchange&& exchange, Compare comp = {}, index_t samples = 0,
                                                    int* rounds = nullptr,
                                                    const std::vector<std::pair<index_t, index_t>>* brackets = nullptr) {
  distributed_co_rank<Partition, Key, Compare> search(diagonals, a, b, comp, samples, brackets);
  while (!search.done()) search.answer(exchange(search.requests()));
  if (rounds != nullptr) *rounds = search.rounds();
  return search.splits();
}

}  // namespace corank
