// The structure-aware mutator of the fuzz targets whose input is one wire::Model
// (model_validation_fuzzer, c_api_fuzzer): libFuzzer's LLVMFuzzerCustomMutator, which changes the
// model a field at a time (a value set to a boundary or to a value no enum declares, a repeated
// element added, copied, removed or swapped), so nearly every input still parses and reaches
// what the target checks rather than the protobuf parser. Linked only into libFuzzer builds.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

#include "wire/nnremote.pb.h"

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize);

// One place in the message tree a mutation can act on: a field of a message, and for repeated
// fields an element (-1 for the field as a whole).
struct Place {
  Message* message;
  const FieldDescriptor* field;
  int index;
};

void collect(Message* message, std::vector<Place>* places, int depth) {
  if (depth > 8 || places->size() > 100000) return;
  const Reflection* reflection = message->GetReflection();
  const auto* descriptor = message->GetDescriptor();
  for (int f = 0; f < descriptor->field_count(); ++f) {
    const FieldDescriptor* field = descriptor->field(f);
    if (field->is_repeated()) {
      const int count = reflection->FieldSize(*message, field);
      places->push_back({message, field, -1});
      for (int i = 0; i < count; ++i) {
        places->push_back({message, field, i});
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
          collect(reflection->MutableRepeatedMessage(message, field, i), places, depth + 1);
        }
      }
    } else {
      places->push_back({message, field, -1});
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && reflection->HasField(*message, field)) {
        collect(reflection->MutableMessage(message, field), places, depth + 1);
      }
    }
  }
}

template <typename T>
T pickInteger(std::mt19937& rng, T current) {
  // Neighbours computed without signed overflow (wrapping, as the bits would).
  using U = std::make_unsigned_t<T>;
  const U bits = static_cast<U>(current);
  const T choices[] = {0,
                       1,
                       static_cast<T>(static_cast<U>(bits + 1u)),
                       static_cast<T>(static_cast<U>(bits - 1u)),
                       static_cast<T>(static_cast<U>(bits * 2u)),
                       std::numeric_limits<T>::max(),
                       std::numeric_limits<T>::min(),
                       static_cast<T>(rng() % 16),
                       static_cast<T>(rng() % 128),
                       static_cast<T>(rng())};
  return choices[rng() % (sizeof(choices) / sizeof(choices[0]))];
}

float pickFloat(std::mt19937& rng, float current) {
  const float choices[] = {0.0f, -1.0f, 1.0f, current * 2, current / 2, -current,
                           std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::denorm_min(), 1.0f / 256};
  return choices[rng() % (sizeof(choices) / sizeof(choices[0]))];
}

// Sets a scalar (or one element of a repeated scalar) to another value of its kind.
void mutateValue(const Place& place, std::mt19937& rng) {
  Message* m = place.message;
  const FieldDescriptor* f = place.field;
  const Reflection* r = m->GetReflection();
  const bool repeated = place.index >= 0;
  const int i = place.index;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      const int32_t v = pickInteger<int32_t>(rng, repeated ? r->GetRepeatedInt32(*m, f, i) : r->GetInt32(*m, f));
      repeated ? r->SetRepeatedInt32(m, f, i, v) : r->SetInt32(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      const int64_t v = pickInteger<int64_t>(rng, repeated ? r->GetRepeatedInt64(*m, f, i) : r->GetInt64(*m, f));
      repeated ? r->SetRepeatedInt64(m, f, i, v) : r->SetInt64(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      const uint32_t v = pickInteger<uint32_t>(rng, repeated ? r->GetRepeatedUInt32(*m, f, i) : r->GetUInt32(*m, f));
      repeated ? r->SetRepeatedUInt32(m, f, i, v) : r->SetUInt32(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      const uint64_t v = pickInteger<uint64_t>(rng, repeated ? r->GetRepeatedUInt64(*m, f, i) : r->GetUInt64(*m, f));
      repeated ? r->SetRepeatedUInt64(m, f, i, v) : r->SetUInt64(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
      const float v = pickFloat(rng, repeated ? r->GetRepeatedFloat(*m, f, i) : r->GetFloat(*m, f));
      repeated ? r->SetRepeatedFloat(m, f, i, v) : r->SetFloat(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      const double v = pickFloat(rng, float(repeated ? r->GetRepeatedDouble(*m, f, i) : r->GetDouble(*m, f)));
      repeated ? r->SetRepeatedDouble(m, f, i, v) : r->SetDouble(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      const bool v = !(repeated ? r->GetRepeatedBool(*m, f, i) : r->GetBool(*m, f));
      repeated ? r->SetRepeatedBool(m, f, i, v) : r->SetBool(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      // A declared value most of the time, sometimes one no enum declares.
      const auto* type = f->enum_type();
      const int v = rng() % 4 == 0 ? static_cast<int>(rng() % 200) - 50
                                   : type->value(static_cast<int>(rng() % type->value_count()))->number();
      repeated ? r->SetRepeatedEnumValue(m, f, i, v) : r->SetEnumValue(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string v = repeated ? r->GetRepeatedString(*m, f, i) : r->GetString(*m, f);
      const size_t size = v.size();
      v.resize(size + 64);
      v.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(v.data()), size, v.size()));
      repeated ? r->SetRepeatedString(m, f, i, v) : r->SetString(m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (!repeated) r->ClearField(m, f);  // a nested message dropped whole
      break;
  }
}

// Changes one field: a value, or a repeated field's elements (add a copy, remove, swap).
void mutateOnce(nnremote::wire::Model* model, std::mt19937& rng) {
  std::vector<Place> places;
  collect(model, &places, 0);
  if (places.empty()) return;
  const Place& place = places[rng() % places.size()];
  Message* m = place.message;
  const FieldDescriptor* f = place.field;
  const Reflection* r = m->GetReflection();
  if (place.index >= 0 || !f->is_repeated()) {
    mutateValue(place, rng);
    return;
  }
  const int count = r->FieldSize(*m, f);
  switch (rng() % 3) {
    case 0:  // remove one element
      if (count > 0) {
        r->SwapElements(m, f, static_cast<int>(rng() % count), count - 1);
        r->RemoveLast(m, f);
      }
      break;
    case 1:  // swap two elements
      if (count > 1) r->SwapElements(m, f, static_cast<int>(rng() % count), static_cast<int>(rng() % count));
      break;
    default: {  // add an element: a copy of one, or a default one, then a value for scalars
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        Message* added = r->AddMessage(m, f);
        if (count > 0) added->CopyFrom(r->GetRepeatedMessage(*m, f, static_cast<int>(rng() % count)));
        break;
      }
      switch (f->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT32: r->AddInt32(m, f, 0); break;
        case FieldDescriptor::CPPTYPE_INT64: r->AddInt64(m, f, 0); break;
        case FieldDescriptor::CPPTYPE_UINT32: r->AddUInt32(m, f, 0); break;
        case FieldDescriptor::CPPTYPE_UINT64: r->AddUInt64(m, f, 0); break;
        case FieldDescriptor::CPPTYPE_FLOAT: r->AddFloat(m, f, 1.0f); break;
        case FieldDescriptor::CPPTYPE_DOUBLE: r->AddDouble(m, f, 1.0); break;
        case FieldDescriptor::CPPTYPE_BOOL: r->AddBool(m, f, false); break;
        case FieldDescriptor::CPPTYPE_ENUM: r->AddEnumValue(m, f, 0); break;
        case FieldDescriptor::CPPTYPE_STRING: r->AddString(m, f, std::string(4, '\0')); break;
        default: return;
      }
      mutateValue({m, f, count}, rng);
    }
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned int seed) {
  nnremote::wire::Model model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) return LLVMFuzzerMutate(data, size, maxSize);
  std::mt19937 rng(seed);
  const int mutations = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < mutations; ++i) mutateOnce(&model, rng);
  const std::string bytes = model.SerializeAsString();
  if (bytes.size() > maxSize) return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}
