#include "schema/label_feedback_store.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace perftriage::schema {
namespace {

// The rows that say something about the labeler: every label the bot applied, and a label a human put on an issue
// the bot labeled (one it never labeled tells nothing about it) that the labeler would not have applied. A label the
// labeler gave that was on the issue already (GitHub sends `labeled` for the labels an issue is opened with) was not
// applied by the bot, and is no correction either. A row is the bot's (applied_by_bot = 1, also when a human later
// re-added it) or a human's (0); removed_by_human is only ever set on the bot's.
#define PT_SQLITE_WOULD_APPLY "SELECT 1 FROM json_each(li.labels) w WHERE lower(w.value) = lower(l.label)"
#define PT_POSTGRES_WOULD_APPLY \
  "SELECT 1 FROM jsonb_array_elements_text(CAST(li.labels AS jsonb)) w(v) WHERE lower(w.v) = lower(l.label)"
#define PT_FEEDBACK_ROWS(D)                                                                           \
  " FROM issue_labels l LEFT JOIN labeled_issues li ON li.repo = l.repo AND li.number = l.number"     \
  " WHERE ($1 = '' OR lower(l.repo) = lower($1)) AND (l.applied_by_bot = 1 OR (li.number IS NOT NULL" \
  " AND NOT EXISTS (" PT_##D##_WOULD_APPLY ")))"

#define PT_OUTCOMES(D)                                                                                   \
  "SELECT l.repo, l.label, count(CASE WHEN l.applied_by_bot = 1 AND l.removed_by_human = 0 THEN 1 END)," \
  " count(CASE WHEN l.applied_by_bot = 1 AND l.removed_by_human = 1 THEN 1 END),"                        \
  " count(CASE WHEN l.applied_by_bot = 0 THEN 1 END)" PT_FEEDBACK_ROWS(D) " GROUP BY l.repo, l.label"
constexpr DialectSql kOutcomes = PT_DIALECT_SQL(PT_OUTCOMES);

// Whether the labeler suggested the row's label on that issue: an element of the stored answer's "suggested" whose
// value is the label (the labeler writes a value in the taxonomy's label spelling; GitHub's names ignore case).
#define PT_SQLITE_SUGGESTED                             \
  "SELECT 1 FROM json_each(li.result, '$.suggested') s" \
  " WHERE lower(json_extract(s.value, '$.value')) = lower(l.label)"
#define PT_POSTGRES_SUGGESTED                                                        \
  "SELECT 1 FROM jsonb_array_elements(CAST(li.result AS jsonb) -> 'suggested') s(v)" \
  " WHERE lower(s.v ->> 'value') = lower(l.label)"
#define PT_CORRECTIONS(D)                                                               \
  "SELECT l.repo, l.number, l.label, CASE WHEN l.applied_by_bot = 0 THEN 1 ELSE 0 END," \
  " CASE WHEN l.applied_by_bot = 0 AND EXISTS (" PT_##D##_SUGGESTED                     \
      ") THEN 1 ELSE 0 END" PT_FEEDBACK_ROWS(D) " AND (l.applied_by_bot = 0 OR l.removed_by_human = 1)"
constexpr DialectSql kCorrections = PT_DIALECT_SQL(PT_CORRECTIONS);
#undef PT_CORRECTIONS
#undef PT_OUTCOMES
#undef PT_SQLITE_WOULD_APPLY
#undef PT_POSTGRES_WOULD_APPLY
#undef PT_SQLITE_SUGGESTED
#undef PT_POSTGRES_SUGGESTED
#undef PT_FEEDBACK_ROWS

}  // namespace

// Sorted here rather than by ORDER BY: PostgreSQL orders text by its locale's collation, SQLite by bytes, and the
// answer is the same on both.
Result<std::vector<LabelOutcome>> label_outcomes(Database& db, std::string_view repo) {
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kOutcomes)));
  st.bind(1, std::string(repo));  // a std::string: "" stays text, never NULL
  PT_ASSIGN(auto rows, collect<LabelOutcome>(st, [](const Statement& s) {
              return LabelOutcome{s.text(0), s.text(1), s.int64(2), s.int64(3), s.int64(4)};
            }));
  std::sort(rows.begin(), rows.end(), [](const LabelOutcome& a, const LabelOutcome& b) {
    return std::tie(a.repo, a.label) < std::tie(b.repo, b.label);
  });
  return rows;
}

Result<std::vector<LabelCorrection>> label_corrections(Database& db, std::string_view repo) {
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kCorrections)));
  st.bind(1, std::string(repo));  // a std::string: "" stays text, never NULL
  PT_ASSIGN(auto rows, collect<LabelCorrection>(st, [](const Statement& s) {
              return LabelCorrection{s.text(0), s.int64(1), s.text(2), s.int64(3) != 0, s.int64(4) != 0};
            }));
  std::sort(rows.begin(), rows.end(), [](const LabelCorrection& a, const LabelCorrection& b) {
    return std::tie(a.repo, a.number, a.label) < std::tie(b.repo, b.number, b.label);
  });
  return rows;
}

}  // namespace perftriage::schema
