/** The other tab (spec 01 §2): super administrators only. */
export function OtherSettings() {
  return <div className="mg-option-tab" />;
}
