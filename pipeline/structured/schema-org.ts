/**
 * A small table of schema.org's type hierarchy — the types pages mark up and extraction asks
 * for (the Article, CreativeWork, WebPage, Organization/LocalBusiness/Store, Place, Event,
 * Product, Offer, Rating, Review families…), not the whole vocabulary — shared by the markup
 * reader (pipeline/structured/markup: which things of a page are of a type) and filling
 * (pipeline/structured: a template's `Article` takes a `NewsArticle`, `Organization` a
 * `Restaurant`). A type the table does not know matches only itself. A type may have several
 * parents (LocalBusiness is an Organization and a Place; BlogPosting an Article and a
 * SocialMediaPosting).
 */

/** Parent → its direct subtypes. */
const SUBTYPES: Readonly<Record<string, string>> = {
  Thing: 'Action CreativeWork Event Intangible Organization Person Place Product',
  CreativeWork:
    'Article Blog Book Clip Collection Comment Course CreativeWorkSeries Dataset DigitalDocument Episode Game Guide HowTo ' +
    'LearningResource Legislation Map MediaObject Menu Message Movie MusicComposition MusicPlaylist MusicRecording Painting ' +
    'Photograph Poster Quotation Review SoftwareApplication SoftwareSourceCode Thesis VisualArtwork WebContent WebPage ' +
    'WebPageElement WebSite HowToStep HowToSection',
  Article: 'AdvertiserContentArticle NewsArticle Report SatiricalArticle ScholarlyArticle SocialMediaPosting TechArticle',
  NewsArticle:
    'AnalysisNewsArticle AskPublicNewsArticle BackgroundNewsArticle OpinionNewsArticle ReportageNewsArticle ReviewNewsArticle',
  ScholarlyArticle: 'MedicalScholarlyArticle',
  SocialMediaPosting: 'BlogPosting DiscussionForumPosting',
  BlogPosting: 'LiveBlogPosting',
  TechArticle: 'APIReference',
  Comment: 'Answer CorrectionComment Question',
  HowTo: 'Recipe',
  MediaObject: '3DModel AudioObject DataDownload ImageObject MusicVideoObject TextObject VideoObject',
  AudioObject: 'Audiobook',
  WebPage:
    'AboutPage CheckoutPage CollectionPage ContactPage FAQPage ItemPage MedicalWebPage ProfilePage QAPage RealEstateListing ' +
    'SearchResultsPage',
  CollectionPage: 'MediaGallery',
  MediaGallery: 'ImageGallery VideoGallery',
  WebPageElement: 'SiteNavigationElement Table WPAdBlock WPFooter WPHeader WPSideBar',
  Review: 'ClaimReview CriticReview EmployerReview MediaReview Recommendation UserReview',
  CriticReview: 'ReviewNewsArticle',
  SoftwareApplication: 'MobileApplication VideoGame WebApplication',
  Game: 'VideoGame',
  MusicPlaylist: 'MusicAlbum MusicRelease',
  CreativeWorkSeries: 'BookSeries MovieSeries Periodical PodcastSeries TVSeries VideoGameSeries',
  Episode: 'PodcastEpisode RadioEpisode TVEpisode',
  Clip: 'MovieClip RadioClip TVClip VideoGameClip',
  Organization:
    'Airline Consortium Corporation EducationalOrganization FundingScheme GovernmentOrganization LibrarySystem LocalBusiness ' +
    'MedicalOrganization NGO NewsMediaOrganization OnlineBusiness PerformingGroup PoliticalParty Project ResearchOrganization ' +
    'SearchRescueOrganization SportsOrganization WorkersUnion',
  EducationalOrganization: 'CollegeOrUniversity ElementarySchool HighSchool MiddleSchool Preschool School',
  OnlineBusiness: 'OnlineStore',
  PerformingGroup: 'DanceGroup MusicGroup TheaterGroup',
  SportsOrganization: 'SportsTeam',
  MedicalOrganization: 'DiagnosticLab Hospital MedicalClinic Pharmacy Physician VeterinaryCare',
  Place:
    'Accommodation AdministrativeArea CivicStructure Landform LandmarksOrHistoricalBuildings LocalBusiness Residence ' +
    'TouristAttraction TouristDestination',
  AdministrativeArea: 'City Country SchoolDistrict State',
  CivicStructure:
    'Airport Aquarium Beach Bridge BusStation Cemetery EventVenue Hospital Museum MusicVenue Park ParkingFacility ' +
    'PlaceOfWorship Playground StadiumOrArena TrainStation Zoo',
  PlaceOfWorship: 'BuddhistTemple Church HinduTemple Mosque Synagogue',
  Accommodation: 'Apartment CampingPitch House Room Suite',
  LocalBusiness:
    'AnimalShelter ArchiveOrganization AutomotiveBusiness ChildCare Dentist DryCleaningOrLaundry EmergencyService ' +
    'EmploymentAgency EntertainmentBusiness FinancialService FoodEstablishment GovernmentOffice HealthAndBeautyBusiness ' +
    'HomeAndConstructionBusiness InternetCafe LegalService Library LodgingBusiness MedicalBusiness ProfessionalService ' +
    'RadioStation RealEstateAgent RecyclingCenter SelfStorage ShoppingCenter SportsActivityLocation Store TelevisionStation ' +
    'TouristInformationCenter TravelAgency',
  Store:
    'AutoPartsStore BikeStore BookStore ClothingStore ComputerStore ConvenienceStore DepartmentStore ElectronicsStore Florist ' +
    'FurnitureStore GardenStore GroceryStore HardwareStore HobbyShop HomeGoodsStore JewelryStore LiquorStore MensClothingStore ' +
    'MobilePhoneStore MovieRentalStore MusicStore OfficeEquipmentStore OutletStore PawnShop PetStore ShoeStore ' +
    'SportingGoodsStore TireShop ToyStore WholesaleStore',
  FoodEstablishment: 'Bakery BarOrPub Brewery CafeOrCoffeeShop Distillery FastFoodRestaurant IceCreamShop Restaurant Winery',
  LodgingBusiness: 'BedAndBreakfast Campground Hostel Hotel Motel Resort VacationRental',
  AutomotiveBusiness: 'AutoBodyShop AutoDealer AutoPartsStore AutoRental AutoRepair AutoWash GasStation MotorcycleDealer MotorcycleRepair',
  HealthAndBeautyBusiness: 'BeautySalon DaySpa HairSalon HealthClub NailSalon TattooParlor',
  SportsActivityLocation: 'BowlingAlley ExerciseGym GolfCourse HealthClub PublicSwimmingPool SkiResort SportsClub StadiumOrArena TennisComplex',
  HomeAndConstructionBusiness: 'Electrician GeneralContractor HVACBusiness HousePainter Locksmith MovingCompany Plumber RoofingContractor',
  FinancialService: 'AccountingService AutomatedTeller BankOrCreditUnion InsuranceAgency',
  LegalService: 'Attorney Notary',
  MedicalBusiness: 'Dentist MedicalClinic Optician Pharmacy Physician',
  EmergencyService: 'FireStation Hospital PoliceStation',
  EntertainmentBusiness: 'AdultEntertainment AmusementPark ArtGallery Casino ComedyClub MovieTheater NightClub',
  Event:
    'BusinessEvent ChildrensEvent ComedyEvent CourseInstance DanceEvent DeliveryEvent EducationEvent EventSeries ' +
    'ExhibitionEvent Festival FoodEvent Hackathon LiteraryEvent MusicEvent PublicationEvent SaleEvent ScreeningEvent ' +
    'SocialEvent SportsEvent TheaterEvent VisualArtsEvent',
  PublicationEvent: 'BroadcastEvent OnDemandEvent',
  Product: 'DietarySupplement Drug IndividualProduct ProductCollection ProductGroup ProductModel SomeProducts Vehicle',
  Vehicle: 'BusOrCoach Car Motorcycle MotorizedBicycle',
  Person: 'Patient',
  Intangible:
    'Audience Brand ComputerLanguage DefinedTerm Demand EntryPoint Grant ItemList JobPosting Language ListItem Occupation ' +
    'Offer Order Quantity Rating Reservation Service StructuredValue Trip VirtualLocation',
  ItemList: 'BreadcrumbList HowToSection HowToStep OfferCatalog',
  ListItem: 'HowToDirection HowToItem HowToStep HowToTip',
  Offer: 'AggregateOffer OfferForLease OfferForPurchase',
  Rating: 'AggregateRating EndorsementRating',
  AggregateRating: 'EmployerAggregateRating',
  Service: 'BroadcastService FinancialProduct FoodService GovernmentService Taxi TaxiService WebAPI',
  StructuredValue:
    'ContactPoint GeoCoordinates GeoShape MonetaryAmount NutritionInformation OfferShippingDetails OpeningHoursSpecification ' +
    'PriceSpecification PropertyValue QuantitativeValue ShippingDeliveryTime',
  ContactPoint: 'PostalAddress',
  PriceSpecification: 'CompoundPriceSpecification DeliveryChargeSpecification PaymentChargeSpecification UnitPriceSpecification',
};

/** Child → its direct parents. */
const PARENTS: ReadonlyMap<string, readonly string[]> = (() => {
  const parents = new Map<string, string[]>();
  for (const [parent, children] of Object.entries(SUBTYPES)) {
    for (const child of children.split(' ')) {
      const list = parents.get(child);
      if (list) list.push(parent);
      else parents.set(child, [parent]);
    }
  }
  return parents;
})();

const ancestorCache = new Map<string, ReadonlySet<string>>();

/** A type and all its supertypes in the table. */
function lineage(type: string): ReadonlySet<string> {
  const cached = ancestorCache.get(type);
  if (cached) return cached;
  const out = new Set<string>([type]);
  const stack = [type];
  for (let t = stack.pop(); t !== undefined; t = stack.pop()) {
    for (const parent of PARENTS.get(t) ?? []) {
      if (!out.has(parent)) {
        out.add(parent);
        stack.push(parent);
      }
    }
  }
  if (PARENTS.has(type)) ancestorCache.set(type, out);
  return out;
}

/** Whether `type` is `wanted` or one of its subtypes (short names). */
export function isSubtype(type: string, wanted: string): boolean {
  return type === wanted || lineage(type).has(wanted);
}
