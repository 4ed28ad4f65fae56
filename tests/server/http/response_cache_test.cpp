// The response cache and the validators (server/http/response_cache.hpp): Accept-Encoding and If-None-Match parsing,
// ETags and the gzip and zstd variants, 304s, the canonical key, the byte bound and LRU order, entries made under a
// generation that has moved on, and the generation itself (AppContext::generation over PRAGMA data_version) moving on a
// write through another connection; concurrent misses of one key computed once (single flight).
// tests/e2e/ops/cache_test.py checks the same against a real server, across processes.
#include "server/http/response_cache.hpp"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "schema/token_store.hpp"
#include "server/app/app_context.hpp"
#include "tests/support/files.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

std::string gunzip(const std::string& in) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(in.size() * 50 + 1024, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

std::string unzstd(const std::string& in) {
  const auto size = ZSTD_getFrameContentSize(in.data(), in.size());
  EXPECT_FALSE(size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN);
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) return "";
  std::string out(size, '\0');
  const auto n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

std::string json_rows(int n) {
  std::string body = "[";
  for (int i = 0; i < n; ++i) body += R"({"name":"Model)" + std::to_string(i) + R"(","speedup":0.5},)";
  return body + "{}]\n";
}

std::string header(const ApiResponse& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

std::shared_ptr<const Representation> rep_of(std::string body) {
  return std::make_shared<const Representation>(represent(text_response(200, "application/json", body), {}));
}

ApiRequest get(std::string path) {
  ApiRequest r;
  r.method = "GET";
  r.path = std::move(path);
  return r;
}

std::shared_ptr<const Representation> sized(std::size_t bytes) {
  auto r = std::make_shared<Representation>();
  r->body.assign(bytes, 'x');
  return r;
}

TEST(AcceptEncoding, GzipWhenOfferedWithNonZeroQuality) {
  const Codings gzip = {Coding::gzip};
  EXPECT_EQ(accepted_codings("gzip"), gzip);
  EXPECT_EQ(accepted_codings("deflate, GZIP;q=0.5, br"), gzip);
  EXPECT_EQ(accepted_codings("x-gzip"), gzip);
  EXPECT_EQ(accepted_codings(""), Codings{});
  EXPECT_EQ(accepted_codings("identity"), Codings{});
  EXPECT_EQ(accepted_codings("gzip;q=0"), Codings{});
  EXPECT_EQ(accepted_codings("gzip; q=0.0, deflate"), Codings{});
  EXPECT_EQ(accepted_codings("*;q=0"), Codings{});
  EXPECT_EQ(accepted_codings("gzip;q=0, *"), Codings{Coding::zstd});  // the explicit refusal wins over the wildcard
}

TEST(AcceptEncoding, ZstdFirstUnlessGzipHasTheHigherQuality) {
  const Codings zstd_first = {Coding::zstd, Coding::gzip}, gzip_first = {Coding::gzip, Coding::zstd};
  EXPECT_EQ(accepted_codings("gzip, deflate, br, zstd"), zstd_first);  // what Chrome and Firefox send
  EXPECT_EQ(accepted_codings("ZSTD"), Codings{Coding::zstd});
  EXPECT_EQ(accepted_codings("*"), zstd_first);
  EXPECT_EQ(accepted_codings("zstd;q=0.5, gzip"), gzip_first);
  EXPECT_EQ(accepted_codings("zstd;q=0.5, gzip;q=0.5"), zstd_first);
  EXPECT_EQ(accepted_codings("zstd;q=0, *"), Codings{Coding::gzip});
  EXPECT_EQ(accepted_codings("gzip;q=0.2, *;q=0.4"), zstd_first);  // "*" gives zstd its 0.4
}

TEST(IfNoneMatch, ListsStarAndWeakComparison) {
  const std::string etag = R"("0123456789abcdef")";
  EXPECT_TRUE(etag_matches(etag, etag));
  EXPECT_TRUE(etag_matches(R"("aaaa", "0123456789abcdef")", etag));
  EXPECT_TRUE(etag_matches(R"(W/"0123456789abcdef")", etag));
  EXPECT_TRUE(etag_matches("*", etag));
  EXPECT_FALSE(etag_matches(R"("0123456789abcdef-gz")", etag));
  EXPECT_FALSE(etag_matches(R"("0123456789abcde")", etag));
  EXPECT_FALSE(etag_matches("", etag));
  EXPECT_FALSE(etag_matches(R"("unterminated)", etag));
}

TEST(Validators, StrongEtagNamesTheBytes) {
  const auto a = strong_etag("abc");
  EXPECT_EQ(a.size(), 18u);
  EXPECT_EQ(a.front(), '"');
  EXPECT_EQ(a, strong_etag("abc"));
  EXPECT_NE(a, strong_etag("abd"));
  EXPECT_EQ(strong_etag("abc", "-gz"), a.substr(0, 17) + "-gz\"");
}

TEST(Validators, OnlyPlainTwoHundredsOfTextTypes) {
  EXPECT_TRUE(validated(json_response(200, {{"a", 1}})));
  EXPECT_TRUE(validated(text_response(200, "text/csv; charset=utf-8", "a,b\n")));
  EXPECT_TRUE(validated(text_response(200, "text/markdown; charset=utf-8", "# x\n")));
  EXPECT_FALSE(validated(json_response(404, {{"a", 1}})));
  EXPECT_FALSE(validated(text_response(200, "application/octet-stream", "raw")));
  EXPECT_FALSE(validated(text_response(200, "application/gzip", "raw")));
  auto no_store = text_response(200, "text/plain", "metrics");
  no_store.headers.emplace_back("Cache-Control", "no-store");
  EXPECT_FALSE(validated(no_store));
}

TEST(Validators, GzipVariantWithItsOwnEtagAndA304) {
  const std::string body = json_rows(200);
  auto res = text_response(200, "application/json", body);
  res.headers.emplace_back("Content-Disposition", "inline");
  const auto shared = std::make_shared<const Representation>(represent(res, {Coding::gzip}));
  const auto& rep = *shared;
  ASSERT_FALSE(rep.gzip.bytes.empty());
  EXPECT_TRUE(rep.zstd.bytes.empty());  // not asked for
  EXPECT_EQ(gunzip(rep.gzip.bytes), body);
  EXPECT_EQ(rep.gzip.etag, rep.etag.substr(0, rep.etag.size() - 1) + "-gz\"");

  const auto plain = answer(shared, Negotiation{true, {}, ""});
  EXPECT_EQ(plain.status, 200u);
  EXPECT_EQ(plain.bytes(), body);
  EXPECT_EQ(plain.bytes().data(), rep.body.data());  // the entry's bytes, not a copy
  EXPECT_EQ(header(plain, "ETag"), rep.etag);
  EXPECT_EQ(header(plain, "Cache-Control"), "no-cache");
  EXPECT_EQ(header(plain, "Vary"), "Accept-Encoding");
  EXPECT_EQ(header(plain, "Content-Disposition"), "inline");
  EXPECT_EQ(header(plain, "Content-Encoding"), "");

  const auto zipped = answer(shared, Negotiation{true, {Coding::gzip}, ""});
  EXPECT_EQ(zipped.bytes(), rep.gzip.bytes);
  EXPECT_EQ(header(zipped, "Content-Encoding"), "gzip");
  EXPECT_EQ(header(zipped, "ETag"), rep.gzip.etag);
  // A client preferring zstd takes gzip when that is what the answer has.
  EXPECT_EQ(answer(shared, Negotiation{true, {Coding::zstd, Coding::gzip}, ""}).bytes(), rep.gzip.bytes);
  EXPECT_EQ(answer(shared, Negotiation{true, {Coding::zstd}, ""}).bytes(), body);

  const auto not_modified = answer(shared, Negotiation{true, {}, rep.etag});
  EXPECT_EQ(not_modified.status, 304u);
  EXPECT_TRUE(not_modified.bytes().empty());
  EXPECT_EQ(header(not_modified, "ETag"), rep.etag);
  // The identity ETag does not validate the gzip bytes.
  EXPECT_EQ(answer(shared, Negotiation{true, {Coding::gzip}, rep.etag}).status, 200u);
}

TEST(Validators, ZstdVariantWithItsOwnEtagAndA304) {
  const std::string body = json_rows(200);
  const auto shared = std::make_shared<const Representation>(
      represent(text_response(200, "application/json", body), {Coding::zstd, Coding::gzip}));
  const auto& rep = *shared;
  ASSERT_FALSE(rep.zstd.bytes.empty());
  ASSERT_FALSE(rep.gzip.bytes.empty());
  EXPECT_EQ(unzstd(rep.zstd.bytes), body);
  EXPECT_LT(rep.zstd.bytes.size(), body.size());
  EXPECT_EQ(rep.zstd.etag, rep.etag.substr(0, rep.etag.size() - 1) + "-zst\"");
  EXPECT_EQ(rep.bytes(), rep.content_type.size() + body.size() + rep.etag.size() + rep.gzip.bytes.size() +
                             rep.gzip.etag.size() + rep.zstd.bytes.size() + rep.zstd.etag.size());

  const auto zstd = answer(shared, Negotiation{true, {Coding::zstd, Coding::gzip}, ""});
  EXPECT_EQ(zstd.bytes().data(), rep.zstd.bytes.data());  // the entry's bytes, not a copy
  EXPECT_EQ(header(zstd, "Content-Encoding"), "zstd");
  EXPECT_EQ(header(zstd, "ETag"), rep.zstd.etag);
  EXPECT_EQ(header(zstd, "Vary"), "Accept-Encoding");
  EXPECT_EQ(header(answer(shared, Negotiation{true, {Coding::gzip, Coding::zstd}, ""}), "Content-Encoding"), "gzip");

  EXPECT_EQ(answer(shared, Negotiation{true, {Coding::zstd}, rep.zstd.etag}).status, 304u);
  // Each ETag validates its own bytes only.
  EXPECT_EQ(answer(shared, Negotiation{true, {Coding::zstd}, rep.gzip.etag}).status, 200u);
  EXPECT_EQ(answer(shared, Negotiation{true, {Coding::zstd}, rep.etag}).status, 200u);
  EXPECT_EQ(answer(shared, Negotiation{true, {}, rep.zstd.etag}).status, 200u);

  // Not cached (finish): only the coding the client prefers is made.
  const auto sent = finish(text_response(200, "application/json", body), Negotiation{true, {Coding::zstd}, ""});
  EXPECT_EQ(header(sent, "Content-Encoding"), "zstd");
  EXPECT_EQ(unzstd(std::string(sent.bytes())), body);
}

TEST(Validators, SmallBodiesAndOtherMethodsStayAsTheyAre) {
  const auto small =
      std::make_shared<const Representation>(represent(json_response(200, {{"a", 1}}), {Coding::zstd, Coding::gzip}));
  EXPECT_TRUE(small->gzip.bytes.empty());
  EXPECT_TRUE(small->zstd.bytes.empty());
  EXPECT_EQ(answer(small, Negotiation{true, {Coding::zstd, Coding::gzip}, ""}).bytes(), small->body);

  const auto posted = finish(json_response(200, {{"a", 1}}), Negotiation{false, {Coding::gzip}, "*"});
  EXPECT_EQ(posted.status, 200u);
  EXPECT_EQ(header(posted, "ETag"), "");
  const auto got = finish(json_response(200, {{"a", 1}}), Negotiation{true, {}, "*"});
  EXPECT_EQ(got.status, 304u);
}

TEST(CacheKey, CanonicalAndUnambiguous) {
  ApiRequest a;
  a.method = "GET";
  a.path = "/api/v1/runs";
  a.query = parse_query("platform=BMG&threshold=0.9");
  ApiRequest b = a;
  b.method = "HEAD";
  b.query = parse_query("threshold=0.9&platform=BMG");
  EXPECT_EQ(cache_key(a), cache_key(b));
  ApiRequest c = a;
  c.query = {{"platform", "BMG&threshold=0.9"}};
  EXPECT_NE(cache_key(a), cache_key(c));
  ApiRequest d = a;
  d.path = "/api/v1/runs/x";
  EXPECT_NE(cache_key(a), cache_key(d));
}

// A cache's view of the data for the tests: a generation, a top stamp and the stamps of named scopes.
struct FakeData {
  DataView now{1, 10};
  std::map<std::string, std::int64_t> stamps;
  [[nodiscard]] Freshness fresh() const {
    return Freshness{now, [this](const std::vector<std::string>& scopes) {
                       std::int64_t newest = 0;
                       for (const auto& s : scopes) {
                         if (const auto it = stamps.find(s); it != stamps.end()) newest = std::max(newest, it->second);
                       }
                       return newest;
                     }};
  }
};

std::shared_ptr<const Representation> scoped(std::string body, std::vector<std::string> scopes) {
  auto res = text_response(200, "application/json", std::move(body));
  res.data_scopes = std::move(scopes);
  return std::make_shared<const Representation>(represent(std::move(res), {}));
}

TEST(ResponseCache, AnAnswerWithoutScopesHitsOnlyUnderItsGeneration) {
  ResponseCache cache(1 << 20);
  FakeData data{{5, 10}, {}};
  EXPECT_TRUE(cache.put("k", data.now, rep_of("a"), data.fresh()));
  EXPECT_NE(cache.find("k", data.fresh()), nullptr);
  EXPECT_EQ(cache.find("other", data.fresh()), nullptr);
  const DataView made = data.now;
  data.now = {6, 10};  // a write committed (a token, say: no result stamp moved)
  EXPECT_EQ(cache.find("k", data.fresh()), nullptr);
  EXPECT_EQ(cache.entries(), 0u);  // the stale entry went when it was looked up
  EXPECT_EQ(cache.bytes(), 0u);
  // A handler that started before the write and finished after it: its answer is never kept.
  EXPECT_FALSE(cache.put("k", made, rep_of("a"), data.fresh()));
  EXPECT_EQ(cache.find("k", data.fresh()), nullptr);
  EXPECT_TRUE(cache.put("k", data.now, rep_of("b"), data.fresh()));
  EXPECT_NE(cache.find("k", data.fresh()), nullptr);
}

TEST(ResponseCache, AnAnswerWithScopesOutlivesWritesElsewhere) {
  ResponseCache cache(1 << 20);
  FakeData data{{1, 10}, {{"run:1", 4}, {"run:2", 7}, {"platform:bmg", 7}, {"platform:a100", 9}}};
  ASSERT_TRUE(cache.put("compare", data.now, scoped("c", {"run:1", "run:2", "tag:bmg:release"}), data.fresh()));
  ASSERT_TRUE(cache.put("backlog", data.now, scoped("b", {"platform:bmg"}), data.fresh()));
  ASSERT_TRUE(cache.put("runs", data.now, scoped("r", {"*"}), data.fresh()));
  // A new run of BMG (run 3): '*', run:3 and platform:bmg take stamp 11; the token write of the upload moved the
  // generation too. The compare of runs 1 and 2 stays; what reads the platform or everything goes.
  data.now = {3, 11};
  data.stamps["*"] = data.stamps["run:3"] = data.stamps["platform:bmg"] = 11;
  EXPECT_NE(cache.find("compare", data.fresh()), nullptr);
  EXPECT_EQ(cache.find("backlog", data.fresh()), nullptr);
  EXPECT_EQ(cache.find("runs", data.fresh()), nullptr);
  // A file of run 2 superseded: the compare goes too.
  data.now = {4, 12};
  data.stamps["*"] = data.stamps["run:2"] = data.stamps["platform:bmg"] = 12;
  EXPECT_EQ(cache.find("compare", data.fresh()), nullptr);
  // So does one whose base tag moved to another run.
  ASSERT_TRUE(cache.put("compare", data.now, scoped("c", {"run:1", "run:2", "tag:bmg:release"}), data.fresh()));
  data.now = {5, 13};
  data.stamps["*"] = data.stamps["tag:bmg:release"] = 13;
  EXPECT_EQ(cache.find("compare", data.fresh()), nullptr);
}

TEST(ResponseCache, AScopedAnswerMadeBeforeAWriteToItsScopeIsNeverKept) {
  ResponseCache cache(1 << 20);
  FakeData data{{1, 10}, {{"platform:bmg", 10}}};
  const DataView made = data.now;
  data.now = {2, 11};  // while the handler ran, an upload to BMG committed
  data.stamps["platform:bmg"] = 11;
  EXPECT_FALSE(cache.put("slow", made, scoped("s", {"platform:bmg"}), data.fresh()));
  // One to another platform does not matter.
  EXPECT_TRUE(cache.put("slow-a100", made, scoped("s", {"platform:a100"}), data.fresh()));
  // Stamps that cannot be read (top < 0): a scoped answer falls back to the generation rule.
  const DataView unknown{2, -1};
  data.now = unknown;
  EXPECT_TRUE(cache.put("x", unknown, scoped("x", {"platform:a100"}), data.fresh()));
  data.now = {3, -1};
  EXPECT_EQ(cache.find("x", data.fresh()), nullptr);
}

TEST(ResponseCache, BoundedInBytesLeastRecentlyUsedFirst) {
  const std::size_t max = 64 << 10;
  ResponseCache cache(max);
  const FakeData data;
  EXPECT_FALSE(cache.put("huge", data.now, sized(max / 8 + 1), data.fresh()));  // above an eighth: never kept
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(cache.put("k" + std::to_string(i), data.now, sized(4000), data.fresh()));
    ASSERT_LE(cache.bytes(), max);
    if (i >= 1) {
      ASSERT_NE(cache.find("k0", data.fresh()), nullptr) << i;  // k0 is used after every insert: it stays
    }
  }
  EXPECT_GT(cache.entries(), 10u);
  EXPECT_LT(cache.entries(), 20u);
  EXPECT_EQ(cache.find("k1", data.fresh()), nullptr);  // the oldest unused ones went
  EXPECT_NE(cache.find("k199", data.fresh()), nullptr);
  // Replacing an entry does not count it twice.
  const auto before = cache.bytes();
  ASSERT_TRUE(cache.put("k199", data.now, sized(4000), data.fresh()));
  EXPECT_EQ(cache.bytes(), before);
}

TEST(ResponseCache, OffAtZero) {
  ResponseCache cache(0);
  const FakeData data;
  EXPECT_FALSE(cache.enabled());
  EXPECT_FALSE(cache.put("k", data.now, rep_of("a"), data.fresh()));
  EXPECT_EQ(cache.find("k", data.fresh()), nullptr);
}

class GenerationTest : public ::testing::Test {
 protected:
  testing::TempDir dir_{"perftriage-cache"};
};

TEST_F(GenerationTest, MovesOnAWriteThroughAnotherConnection) {
  Settings settings;
  settings.db_path = testing_support::test_db_file(dir_.file("db.sqlite"));
  AppContext app(settings);
  {
    auto store = app.store();  // migrates the new file
    ASSERT_TRUE(store) << store.error().message;
  }
  const auto g1 = app.generation();
  ASSERT_TRUE(g1);
  EXPECT_EQ(app.generation(), g1);  // nothing written: the same
  {
    auto store = app.store();
    ASSERT_TRUE(store);
    ASSERT_TRUE(schema::create_token((*store)->db(), "writer", {"read"}, std::nullopt));
  }
  const auto g2 = app.generation();
  ASSERT_TRUE(g2);
  EXPECT_GT(*g2, *g1);
  EXPECT_EQ(app.generation(), g2);
  // A second process's write reaches the watcher the same way (through the file); a separate AppContext stands in.
  AppContext other(settings);
  {
    auto store = other.store();
    ASSERT_TRUE(store);
    ASSERT_TRUE(schema::create_token((*store)->db(), "other", {"read"}, std::nullopt));
  }
  EXPECT_GT(*app.generation(), *g2);
}

TEST_F(GenerationTest, UnknownForAnInMemoryDatabase) {
  Settings settings;
  settings.db_path = ":memory:";
  AppContext app(settings);
  EXPECT_FALSE(app.generation());
  ResponseCache cache(1 << 20);
  ApiRequest head;
  head.method = "GET";
  head.path = "/api/v1/runs";
  const auto ticket = cache.lookup(head, app, Negotiation::of(head));
  EXPECT_FALSE(ticket.hit);
  EXPECT_FALSE(ticket.view);  // nothing will be stored
}

TEST_F(GenerationTest, LookupFillAndAWriteInBetween) {
  Settings settings;
  settings.db_path = testing_support::test_db_file(dir_.file("db.sqlite"));
  AppContext app(settings);
  ASSERT_TRUE(app.store());
  ResponseCache cache(1 << 20);
  ApiRequest head;
  head.method = "GET";
  head.path = "/api/v1/runs";
  head.headers["accept-encoding"] = "gzip";
  const auto negotiation = Negotiation::of(head);
  const std::string body = json_rows(100);

  auto ticket = cache.lookup(head, app, negotiation);
  ASSERT_FALSE(ticket.hit);
  ASSERT_TRUE(ticket.view);
  const auto first = cache.fill(ticket, text_response(200, "application/json", body), negotiation, app);
  EXPECT_EQ(gunzip(std::string(first.bytes())), body);

  // The entry was kept in every coding: a browser asking for zstd next gets it from the entry.
  auto browser = head;
  browser.headers["accept-encoding"] = "gzip, deflate, br, zstd";
  const auto zstd_hit = cache.lookup(browser, app, Negotiation::of(browser));
  ASSERT_TRUE(zstd_hit.hit);
  EXPECT_EQ(header(*zstd_hit.hit, "Content-Encoding"), "zstd");
  EXPECT_EQ(unzstd(std::string(zstd_hit.hit->bytes())), body);

  head.method = "HEAD";  // HEAD is answered from GET's entry
  ticket = cache.lookup(head, app, negotiation);
  ASSERT_TRUE(ticket.hit);
  EXPECT_EQ(header(*ticket.hit, "ETag"), header(first, "ETag"));

  // A write commits while a handler runs: its answer is stale at once.
  ticket = cache.lookup(get("/api/v1/other"), app, negotiation);
  ASSERT_FALSE(ticket.hit);
  {
    auto store = app.store();
    ASSERT_TRUE(schema::create_token((*store)->db(), "writer", {"read"}, std::nullopt));
  }
  cache.fill(ticket, text_response(200, "application/json", "old"), negotiation, app);
  EXPECT_FALSE(cache.lookup(get("/api/v1/other"), app, negotiation).hit);
  EXPECT_FALSE(cache.lookup(head, app, negotiation).hit);
}

TEST_F(GenerationTest, ConcurrentMissesOfOneKeyComputeItOnce) {
  Settings settings;
  settings.db_path = testing_support::test_db_file(dir_.file("db.sqlite"));
  AppContext app(settings);
  ASSERT_TRUE(app.store());
  ResponseCache cache(1 << 20);
  const auto head = get("/api/v1/compare");
  const auto negotiation = Negotiation::of(head);
  // Eight requests miss together, as after a write under load; each runs in its own pool thread.
  std::vector<ResponseCache::Ticket> tickets;
  for (int i = 0; i < 8; ++i) tickets.push_back(cache.lookup(head, app, negotiation));
  ASSERT_TRUE(tickets.front().view);
  std::atomic<int> computed{0};
  std::vector<std::string> bodies(tickets.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < tickets.size(); ++i) {
    threads.emplace_back([&, i] {
      auto res = cache.run(tickets[i], negotiation, app, [&] {
        ++computed;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the others arrive while it computes
        return text_response(200, "application/json", json_rows(50));
      });
      bodies[i] = std::string(res.bytes());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(computed.load(), 1);
  for (const auto& b : bodies) EXPECT_EQ(b, json_rows(50));
  // A different key is not held up by it, and is computed on its own.
  auto other = cache.lookup(get("/api/v1/slow"), app, negotiation);
  cache.run(other, negotiation, app, [&] {
    ++computed;
    return text_response(200, "application/json", "[]");
  });
  EXPECT_EQ(computed.load(), 2);
}

}  // namespace
}  // namespace perftriage::server
