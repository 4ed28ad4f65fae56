// framing_error: a request head framed one way only passes; every ambiguity RFC 9112 names is refused with its field.
#include <gtest/gtest.h>

#include "server/http/framing.hpp"

namespace perftriage::server {
namespace {

std::string refused_field(unsigned version, const HeaderFields& fields) {
  const auto e = framing_error(version, fields);
  return e ? e->column : "";
}

TEST(Framing, AHeadFramedOneWayPasses) {
  EXPECT_FALSE(framing_error(11, {{"Host", "a"}, {"Content-Length", "12"}}));
  EXPECT_FALSE(framing_error(11, {{"host", "a"}, {"Transfer-Encoding", "chunked"}}));
  EXPECT_FALSE(framing_error(11, {{"Host", "a"}, {"transfer-encoding", " Chunked "}}));
  EXPECT_FALSE(framing_error(11, {{"Host", "a"}}));            // no body
  EXPECT_FALSE(framing_error(10, {{"Content-Length", "0"}}));  // HTTP/1.0 needs no Host
  EXPECT_FALSE(framing_error(11, {{"Host", "a"}, {"Authorization", "Bearer x"}}));
}

TEST(Framing, TransferEncodingOtherThanChunkedOrBesideALengthIsRefused) {
  for (const char* te : {"gzip", "identity", "xchunked", "gzip, chunked", "chunked, chunked", ""}) {
    EXPECT_EQ(refused_field(11, {{"Host", "a"}, {"Transfer-Encoding", te}}), "transfer-encoding") << te;
  }
  EXPECT_EQ(refused_field(11, {{"Host", "a"}, {"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}}),
            "transfer-encoding");
  EXPECT_EQ(refused_field(11, {{"Host", "a"}, {"Transfer-Encoding", "chunked"}, {"Content-Length", "3"}}),
            "transfer-encoding");
  EXPECT_EQ(refused_field(10, {{"Transfer-Encoding", "chunked"}}), "transfer-encoding");
}

TEST(Framing, ContentLengthIsOneDecimalNumber) {
  EXPECT_EQ(refused_field(11, {{"Host", "a"}, {"Content-Length", "3"}, {"Content-Length", "3"}}), "content-length");
  for (const char* cl : {"2x", "-1", "", "1,1", "+5", "0x10"}) {
    EXPECT_EQ(refused_field(11, {{"Host", "a"}, {"Content-Length", cl}}), "content-length") << cl;
  }
}

TEST(Framing, HostIsThereOnceOnHttp11AndAuthorizationAtMostOnce) {
  EXPECT_EQ(refused_field(11, {{"Content-Length", "1"}}), "host");
  EXPECT_EQ(refused_field(11, {{"Host", "a"}, {"HOST", "b"}}), "host");
  EXPECT_EQ(refused_field(10, {{"Host", "a"}, {"Host", "b"}}), "host");
  const auto twice = framing_error(11, {{"Host", "a"}, {"Authorization", "Bearer r"}, {"authorization", "Bearer w"}});
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->code, "duplicate_header");
  EXPECT_EQ(twice->kind, ErrorKind::invalid_input);
}

}  // namespace
}  // namespace perftriage::server
